"""twistd dropin: ``twistd gamehall``."""
from twisted.application.service import ServiceMaker

gamehall = ServiceMaker(
    "gamehall", "gamehall.tap", "A multi-game server for classic online board games", "gamehall")
