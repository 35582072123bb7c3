"""A CRLF line protocol for Nim: lobby commands plus TAKE n."""
from zope.interface import implementer

from gamehall.connection import FramedProtocol, FrontEndFactory
from gamehall.framing import LineFramer
from gamehall.interfaces import IllegalAction, IUserSink
from gamehall.lobby import LobbyError
from gamehall.table import TableError


@implementer(IUserSink)
class NimProtocol(FramedProtocol):
    framer_class = LineFramer
    user = None

    def connectionMade(self):
        super().connectionMade()
        self.say("HELLO nim: NICK name, then SAY text, WHO, NEW, JOIN n, WATCH n, BOT, START, TAKE n")

    def say(self, line):
        self.send_frame(line.encode("utf-8"))

    def frame_error(self, error):
        self.say(f"ERR {error}")

    def frame_received(self, line):
        verb, _, arg = line.decode("utf-8", "replace").strip().partition(" ")
        handler = getattr(self, "do_" + verb.upper(), None)
        if handler is None or (self.user is None and verb.upper() != "NICK"):
            return self.say("ERR unknown command, or NICK first")
        try:
            handler(arg.strip())
        except (LobbyError, TableError, IllegalAction) as exc:
            self.say(f"ERR {exc}")
        except ValueError:
            self.say("ERR bad argument")

    def do_NICK(self, name):
        if self.user is None:
            self.user = self.hall.login(name, "nim", self, self.peer)
            self.say(f"OK welcome {self.user.nickname}")
            table = self.hall.held_table(name)
            if table is not None:
                table.reconnect(self.user)

    def do_SAY(self, text):
        self.hall.lobby.chat(self.user.nickname, text)

    def do_WHO(self, _):
        self.say("WHO " + " ".join(sorted(u.nickname for u in self.hall.who())))

    def do_NEW(self, seats):
        table = self.hall.create_table("nim", max_seats=int(seats or 2), creator=self.user)
        self.say(f"OK table {table.id}")

    def do_JOIN(self, number):
        self.hall.table(number).join(self.user)

    def do_WATCH(self, number):
        self.hall.table(number).watch(self.user)

    def do_BOT(self, _):
        self._table().add_bot()

    def do_START(self, _):
        self._table().start(self.user)

    def do_TAKE(self, count):
        self._table().act(self.user, {"take": int(count)})

    def do_QUIT(self, _):
        self.close()

    def _table(self):
        if self.user.table is None:
            raise TableError("You are not at a table")
        return self.user.table

    def connection_gone(self):
        if self.user is not None:
            self.hall.logout(self.user)

    # IUserSink: hall events in this protocol's words
    def lobby_chat(self, sender, text):
        self.say(f"CHAT {sender} {text}")

    def lobby_changed(self, event, detail):
        pass

    def table_event(self, table, event, detail):
        if event == "game":
            for e in detail["events"]:
                self.say(f"TOOK {table.players()[e['seat']]} {e['take']} {e['pile']}")
        elif event == "decision":
            self.say(f"YOURTURN {table.engine.pile}")
        elif event == "finished":
            self.say(f"OVER {table.players()[detail['result']['winners'][0]]}")
        elif event in ("joined", "left", "started"):
            self.say(f"{event.upper()} {detail.get('nickname', '')}".rstrip())

    def disconnect(self, reason):
        self.say(f"BYE {reason}")
        self.close()


def build_factory(hall):
    return FrontEndFactory(hall, "nim", NimProtocol)
