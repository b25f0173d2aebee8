"""The language server: `problems` (what the editor shows, no LSP library) and `server` (pygls)."""
