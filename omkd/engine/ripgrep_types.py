"""The file types ripgrep knows by name: ``rg --type NAME`` (``-t``), ``--type-not`` (``-T``), and the
``type`` of Claude Code's Grep, which hands it to ripgrep.

ripgrep refuses a name it does not know (``unrecognized file type: tsx``, exit 2): the search never
ran. Some Claude Code versions answer such a Grep with a plain "No files found", as they do a
pattern ripgrep cannot compile (spec §3.1: a search the tool cannot run is a fault, not a miss).
``tsx`` is not a name (``ts`` covers ``*.tsx``), nor is a list such as ``ts,tsx``.

The names are the union of ripgrep 13.0's ``rg --type-list`` (Debian's package) and ripgrep 14's
default types (14 added aliases such as ``python`` and ``typescript`` and types such as ``svelte``
and ``vue``), plus ``all``: a name either version knows is taken as known, so a newer Claude Code's
ripgrep is never second-guessed; a name neither knows was refused by both.
"""

from __future__ import annotations

import re
from typing import Final

from omkd.engine import patterns

_NAMES: Final = """
ada agda aidl alire all amake asciidoc asm asp ats avro awk bat batch bazel bitbake boxlang brotli
buildstream bzip2 c cabal cbor ceylon cfml clojure cmake coffeescript config coq cpp creole crystal
cs csharp cshtml csproj css csv cuda cython d dart devicetree dhall diff dita docker dockercompose
dts dvc ebuild edn elisp elixir elm erb erlang fennel fidl fish flatbuffers fortran fsharp fut gap
gdscript gleam gn go gprbuild gradle graphql groovy gzip h haml hare haskell hbs hs html hy idris
janet java jinja jl js json jsonl julia jupyter k kconfig kotlin lean less license lilypond lisp
llvm lock log lua lz4 lzma m4 make mako man markdown matlab md meson minified mint mk ml motoko
msbuild nim nix objc objcpp ocaml org pants pascal pdf perl php po pod postscript prolog protobuf
ps puppet purs py python qmake qml qrc qui r racket raku rdoc readme reasonml red rescript robot
rst ruby rust sass scala scdoc seed7 sh slim smarty sml solidity soy spark spec sql stylus sv
svelte svg swift swig systemd taskpaper tcl tex texinfo textile tf thrift toml ts twig txt
typescript typoscript typst usd v vala vb vcl verilog vhdl vim vimscript vue webidl wgsl wiki xml
xz yacc yaml yang z zig zsh zstd
"""
KNOWN: Final = frozenset(_NAMES.split())


_VALUE_LETTERS: Final = re.compile(r"[ABCdEefgjMmrtT]")
"""ripgrep's short options that take a value: in a bunch (``-nA3``) the rest is that value."""


def uses_pcre2(args: list[str]) -> bool:
    """ripgrep runs the pattern with PCRE2, which has look-around and back-references: ``-P`` (alone or
    bunched, ``-nP``), ``--pcre2``, ``--engine=pcre2`` (``--engine pcre2``, ``--perl-regexp``)."""
    for arg in args:
        if arg in patterns.PCRE_FLAGS or arg.startswith("--engine=pcre"):
            return True
        if arg[:1] == "-" and arg[1:2] not in ("-", "") and "P" in _VALUE_LETTERS.split(arg[1:], maxsplit=1)[0]:
            return True
    return False
