"""The LLM judge's chat clients: one small protocol (``ChatClient``: a system and a user message
in, the reply's text and token counts out), spoken by OpenAI-compatible endpoints and by Anthropic's
messages API through their official clients (imported when a client is made: a run without the
judge never loads them). The budget, the cache and the fallback to the embedded verdict are the
refiner's (``llm_judge.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol

MAX_REPLY_TOKENS: Final = 120


@dataclass(frozen=True, slots=True)
class Reply:
    text: str
    input_tokens: int
    output_tokens: int


class ChatClient(Protocol):
    async def complete(self, system: str, user: str, timeout: float) -> Reply: ...
    async def close(self) -> None: ...


class OpenAIChat:
    """An OpenAI-compatible chat-completions endpoint, through the official ``openai`` client."""

    def __init__(self, model: str, base_url: str | None, api_key: str | None) -> None:
        from openai import AsyncOpenAI

        # a local server needs no key, but the client insists on one
        self._client = AsyncOpenAI(api_key=api_key or "not-needed", base_url=base_url, max_retries=0)
        self._model = model

    async def complete(self, system: str, user: str, timeout: float) -> Reply:
        response = await self._client.chat.completions.create(
            model=self._model,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            temperature=0,
            max_tokens=MAX_REPLY_TOKENS,
            timeout=timeout,
        )
        text = response.choices[0].message.content if response.choices else None
        usage = response.usage
        return Reply(text or "", usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0)

    async def close(self) -> None:
        await self._client.close()


class AnthropicChat:
    """The Anthropic messages API, through the official ``anthropic`` client."""

    def __init__(self, model: str, base_url: str | None, api_key: str | None) -> None:
        from anthropic import AsyncAnthropic

        self._client = AsyncAnthropic(api_key=api_key or "not-needed", base_url=base_url, max_retries=0)
        self._model = model

    async def complete(self, system: str, user: str, timeout: float) -> Reply:
        response = await self._client.messages.create(
            model=self._model,
            system=system,
            messages=[{"role": "user", "content": user}],
            max_tokens=MAX_REPLY_TOKENS,
            timeout=timeout,
        )
        text = "".join(getattr(block, "text", "") for block in response.content)
        return Reply(text, response.usage.input_tokens, response.usage.output_tokens)

    async def close(self) -> None:
        await self._client.close()
