"""NetAcquire front end for Acquire: codec, rendering and the Twisted protocol."""
