"""The ``netacquire`` front end for Acquire: framing, codec, rendering and the Twisted protocol."""
