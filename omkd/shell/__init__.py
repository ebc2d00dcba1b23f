"""I/O shells around the pure engine: file discovery, reading, the knowledge base on disk."""
