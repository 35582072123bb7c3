"""The admin console's default credentials kept in a PostgreSQL store.

With a SQLite store and no ``--auth``, the console takes 'admin' with a password kept
in ``<db>.admin`` beside the file (``gamehall.tap.default_admin_checker``).  A
PostgreSQL store has no file beside it: the password is kept in the store's
``gamehall_admin`` table instead, made (at random) by the first hall that opens the
store, and shown by ``gamehall-store admin URL``.
"""
from __future__ import annotations

import hmac
import secrets
from typing import Any

from twisted.cred.checkers import ICredentialsChecker
from twisted.cred.credentials import IUsernamePassword
from twisted.cred.error import UnauthorizedLogin
from twisted.internet.defer import Deferred, fail
from twisted.logger import Logger
from zope.interface import implementer

ADMIN = "admin"


@implementer(ICredentialsChecker)
class StoreAdminChecker:
    """Checks a username and password against those kept in the store."""

    credentialInterfaces = (IUsernamePassword,)
    log = Logger()

    def __init__(self, store: Any) -> None:
        self.store = store

    def ensure_password(self) -> Deferred:
        """Once the store is open: keep a random password for 'admin' unless one is kept."""
        d = self.store.ensure_admin_password(ADMIN, secrets.token_urlsafe(12))

        def made(new: bool) -> None:
            if new:
                self.log.info("admin console: a password for {user!r} was made and kept in the store",
                              user=ADMIN)

        return d.addCallback(made)

    def requestAvatarId(self, credentials: IUsernamePassword) -> Deferred:
        username, password = credentials.username, credentials.password
        if not isinstance(username, str) or not isinstance(password, str):
            return fail(UnauthorizedLogin())    # (OperatorChecker tries the str form too)
        d = self.store.admin_password(username)

        def check(kept: str | None) -> str:
            if kept is None or not hmac.compare_digest(kept.encode(), password.encode()):
                raise UnauthorizedLogin()
            return username

        return d.addCallback(check)
