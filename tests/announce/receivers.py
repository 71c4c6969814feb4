"""Real receivers on loopback for `shiplog announce`, each checking what it is sent the
way the service it stands for would, and counting what it took:

- /webhook/<name>: verified with the Standard Webhooks library (signature, timestamp
  tolerance); repeats of a webhook-id are counted apart.
- /slack: Block Kit shapes and limits (header 150, section 3,000, fallback text).
- /discord: embed limits (title 256, description 4,096, footer 2,048, all 6,000), counted
  in UTF-16 units as Discord counts them; mentions never parsed.
- /hub: a WebSub publish ping (hub.mode=publish, hub.url per feed).
- /fault/<kind>: 500 then 204, 429 with Retry-After: 2 then 204, a 30 s stall, 404.
- SMTP (aiosmtpd) with STARTTLS and AUTH required, and one with implicit TLS.
"""

import base64
import json
import os
import socket
import ssl
import subprocess
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

# aiosmtpd warns about the implicit-TLS server's AUTH (see smtp_servers) and about its own
# deprecated fields; neither is about what is tested.
warnings.filterwarnings("ignore", module="aiosmtpd")
from standardwebhooks.webhooks import Webhook

SLACK_HEADER, SLACK_SECTION, SLACK_TEXT = 150, 3000, 4000
DISCORD_TITLE, DISCORD_DESCRIPTION, DISCORD_FOOTER, DISCORD_TOTAL = 256, 4096, 2048, 6000
SECRET = "whsec_" + base64.b64encode(b"shiplog-test-signing-key-32-bytes").decode()
SMTP_USER, SMTP_PASSWORD = "announcer", "s3cret-pa55"


def utf16(text):
    return len(text.encode("utf-16-le")) // 2


class Log:
    """What every receiver took, and what it refused, behind one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.got = []  # (receiver, key, payload)
        self.refused = []  # (receiver, why)
        self.hits = {}  # receiver -> number of requests

    def hit(self, receiver):
        with self.lock:
            self.hits[receiver] = self.hits.get(receiver, 0) + 1
            return self.hits[receiver]

    def take(self, receiver, key, payload):
        with self.lock:
            self.got.append((receiver, key, payload))

    def refuse(self, receiver, why):
        with self.lock:
            self.refused.append((receiver, why))

    def of(self, receiver):
        with self.lock:
            return [(key, payload) for name, key, payload in self.got if name == receiver]


def check_slack(payload):
    problems = []
    text = payload.get("text")
    if not isinstance(text, str) or not text or len(text) > SLACK_TEXT:
        problems.append(f"fallback text missing or over {SLACK_TEXT}")
    blocks = payload.get("blocks")
    if not isinstance(blocks, list) or not 1 <= len(blocks) <= 50:
        return problems + ["blocks must be a list of 1 to 50"]
    for block in blocks:
        kind = block.get("type")
        if kind == "header":
            t = block["text"]
            if t.get("type") != "plain_text" or not 1 <= len(t.get("text", "")) <= SLACK_HEADER:
                problems.append(f"header text over {SLACK_HEADER} or not plain_text")
        elif kind == "section":
            t = block["text"]
            if t.get("type") not in ("mrkdwn", "plain_text") or not 1 <= len(t.get("text", "")) <= SLACK_SECTION:
                problems.append(f"section text over {SLACK_SECTION}")
        elif kind == "context":
            elements = block.get("elements", [])
            if not 1 <= len(elements) <= 10 or any(not 1 <= len(e.get("text", "")) <= 2000 for e in elements):
                problems.append("context elements")
        else:
            problems.append(f"unexpected block {kind}")
    return problems


def check_discord(payload):
    problems = []
    embeds = payload.get("embeds")
    if not isinstance(embeds, list) or not 1 <= len(embeds) <= 10:
        return ["embeds must be a list of 1 to 10"]
    if payload.get("allowed_mentions") != {"parse": []}:
        problems.append("mentions would ping")
    total = 0
    for embed in embeds:
        title = embed.get("title", "")
        description = embed.get("description", "")
        footer = embed.get("footer", {}).get("text", "")
        if utf16(title) > DISCORD_TITLE:
            problems.append(f"title over {DISCORD_TITLE}")
        if utf16(description) > DISCORD_DESCRIPTION:
            problems.append(f"description over {DISCORD_DESCRIPTION}")
        if utf16(footer) > DISCORD_FOOTER:
            problems.append(f"footer over {DISCORD_FOOTER}")
        total += utf16(title) + utf16(description) + utf16(footer)
        if not str(embed.get("url", "")).startswith("http"):
            problems.append("no link")
        if "timestamp" not in embed:
            problems.append("no time")
    if total > DISCORD_TOTAL:
        problems.append(f"embeds over {DISCORD_TOTAL} in all")
    return problems


def http_receivers(log):
    """A threading HTTP server on loopback with every route above; returns (server, port)."""
    webhook = Webhook(SECRET)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, headers=()):
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            path, _, query = self.path.partition("?")
            # `?work=MS`: the receiver works that long before it takes the delivery, as a
            # real service does.
            work = parse_qs(query).get("work")
            if work:
                time.sleep(int(work[0]) / 1000)
            if path.startswith("/webhook/"):
                name = path.split("/")[2]
                try:
                    payload = webhook.verify(body, dict(self.headers.items()))
                except Exception as e:  # the library's own verdict
                    log.refuse(name, f"verification: {e}")
                    return self.reply(400)
                if payload.get("type") != "changelog.entry.published" or "entry" not in payload:
                    log.refuse(name, "shape")
                    return self.reply(400)
                log.take(name, self.headers["webhook-id"], payload)
                return self.reply(204)
            if path == "/slack":
                payload = json.loads(body)
                problems = check_slack(payload)
                if problems:
                    log.refuse("slack", problems)
                    return self.reply(400)
                log.take("slack", payload["blocks"][0]["text"]["text"], payload)
                return self.reply(200)
            if path == "/discord":
                payload = json.loads(body)
                problems = check_discord(payload)
                if problems:
                    log.refuse("discord", problems)
                    return self.reply(400)
                log.take("discord", payload["embeds"][0]["url"], payload)
                return self.reply(204)
            if path == "/hub":
                form = parse_qs(body.decode())
                if form.get("hub.mode") != ["publish"] or not form.get("hub.url"):
                    log.refuse("hub", form)
                    return self.reply(400)
                log.take("hub", tuple(form["hub.url"]), form)
                return self.reply(204)
            if path.startswith("/fault/"):
                kind = path.split("/")[2]
                number = log.hit(kind)
                log.take(kind, number, time.monotonic())
                if kind == "500-once" and number == 1:
                    return self.reply(500)
                if kind == "429-once" and number == 1:
                    return self.reply(429, [("Retry-After", "2")])
                if kind == "stall":
                    time.sleep(30)
                if kind == "404":
                    return self.reply(404)
                if kind == "500-always":
                    return self.reply(500)
                return self.reply(204)
            self.reply(404)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def make_certificates(folder):
    """A test CA and a certificate for 127.0.0.1 and localhost signed by it, and a
    self-signed one that no one trusts."""
    def run(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=folder)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=shiplog test CA",
        "-keyout", "ca.key", "-out", "ca.pem", "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "server.key",
        "-out", "server.csr")
    with open(os.path.join(folder, "san.ext"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
                "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-days", "2", "-extfile", "san.ext", "-out", "server.pem")
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
        "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", "untrusted.key",
        "-out", "untrusted.pem")
    return {name: os.path.join(folder, name) for name in
            ("ca.pem", "server.pem", "server.key", "untrusted.pem", "untrusted.key")}


def https_server(certificate, key):
    """An HTTPS server that answers 204 to anything, with the given certificate."""
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.send_response(204)
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


class MailHandler:
    def __init__(self, log, name):
        self.log, self.name = log, name

    async def handle_DATA(self, server, session, envelope):
        self.log.take(self.name, tuple(envelope.rcpt_tos), envelope.content)
        return "250 OK"


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login == SMTP_USER.encode() \
        and auth_data.password == SMTP_PASSWORD.encode()
    return AuthResult(success=ok)


def free_port():
    """A port nothing listens on now (aiosmtpd's controller needs its port up front)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def smtp_servers(log, certs):
    """One SMTP server that requires STARTTLS then AUTH, and one with implicit TLS; returns
    both controllers (stop them) and their ports."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certs["server.pem"], certs["server.key"])
    starttls = Controller(MailHandler(log, "smtp"), hostname="127.0.0.1", port=free_port(),
                          tls_context=context, require_starttls=True, auth_required=True,
                          auth_require_tls=True, authenticator=authenticator)
    starttls.start()
    # TLS from the first byte: aiosmtpd's check that AUTH comes after TLS knows only
    # STARTTLS, so it is off here, where there is no clear text to begin with.
    implicit = Controller(MailHandler(log, "smtps"), hostname="127.0.0.1", port=free_port(),
                          ssl_context=context, auth_required=True, auth_require_tls=False,
                          authenticator=authenticator)
    implicit.start()
    return (starttls, implicit), (starttls.port, implicit.port)
