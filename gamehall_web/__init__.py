"""The web front end: the hall in a browser (JSON over WebSocket, static pages from package data)."""
