"""`shiplog announce` against real receivers on loopback (receivers.py): the release binary
on content folders written here, as CI would run it.

    target/ci-venv/bin/python -m pytest tests/announce
"""

import email
import email.policy
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import receivers

ROOT = Path(__file__).resolve().parents[2]
SHIPLOG = ROOT / "target" / "release" / "shiplog"
NOW = "2026-11-20T12:00:00Z"
LATER = "2026-11-22T12:00:00Z"
LONG_TITLE = "Webhooks that retry " + "for a very long time " * 20
LONG_TEXT = ("Deliveries now retry with backoff, @everyone <b>bold</b> & more. " * 200).strip()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    folder = tmp_path_factory.mktemp("certs")
    certs = receivers.make_certificates(str(folder))
    log = receivers.Log()
    http, port = receivers.http_receivers(log)
    untrusted, untrusted_port = receivers.https_server(certs["untrusted.pem"], certs["untrusted.key"])
    smtp, (smtp_port, smtps_port) = receivers.smtp_servers(log, certs)
    yield {
        "log": log, "port": port, "certs": certs, "untrusted_port": untrusted_port,
        "smtp_port": smtp_port, "smtps_port": smtps_port,
    }
    http.shutdown()
    untrusted.shutdown()
    for controller in smtp:
        controller.stop()


def write_entry(org, name, title, date, text="Body text.", summary=None, tags=("feature",)):
    front = [f"title: {json.dumps(title)}", f"date: {date}", f"tags: {json.dumps(list(tags))}"]
    if summary:
        front.append(f"summary: {json.dumps(summary)}")
    (org / f"{name}.md").write_text("---\n" + "\n".join(front) + "\n---\n" + text + "\n")


def site(tmp_path, org_yaml):
    org = tmp_path / "content" / "acme"
    org.mkdir(parents=True)
    (org / "_org.yaml").write_text(org_yaml)
    (tmp_path / "shiplog.yaml").write_text("org_url: https://{org}.changelog.example\n")
    return org


def announce(tmp_path, env, *flags, now=NOW):
    result = subprocess.run(
        [str(SHIPLOG), "announce", "--now", now, "--state", str(tmp_path / "state.jsonl"), *flags],
        cwd=tmp_path, env={"PATH": os.environ["PATH"], **env}, capture_output=True, text=True,
        timeout=120,
    )
    return result


ALL_CHANNELS = """title: Acme changelog
accent_color: "#6e56cf"
announce:
  - type: webhook
    name: hook-a
    url_env: HOOK_A_URL
    secret_env: HOOK_SECRET
    allow_insecure: true
  - type: webhook
    name: hook-b
    url_env: HOOK_B_URL
    secret_env: HOOK_SECRET
    allow_insecure: true
  - type: slack
    url_env: SLACK_URL
    allow_insecure: true
  - type: discord
    url_env: DISCORD_URL
    allow_insecure: true
  - type: websub
    hub: http://127.0.0.1:{port}/hub
    allow_insecure: true
  - type: email
    smtp_url_env: SMTP_URL
    from: Acme Updates <updates@acme.example>
    to: [news@lists.acme.example, team@acme.example]
  - type: email
    name: digest
    smtp_url_env: SMTPS_URL
    from: updates@acme.example
    to: [digest@acme.example]
    digest: true
"""


def all_env(world):
    port = world["port"]
    return {
        "HOOK_A_URL": f"http://127.0.0.1:{port}/webhook/a",
        "HOOK_B_URL": f"http://127.0.0.1:{port}/webhook/b",
        "HOOK_SECRET": receivers.SECRET,
        "SLACK_URL": f"http://127.0.0.1:{port}/slack",
        "DISCORD_URL": f"http://127.0.0.1:{port}/discord",
        "SMTP_URL": f"smtp://{receivers.SMTP_USER}:{receivers.SMTP_PASSWORD}@localhost:{world['smtp_port']}",
        "SMTPS_URL": f"smtps://{receivers.SMTP_USER}:{receivers.SMTP_PASSWORD}@localhost:{world['smtps_port']}",
        "SSL_CERT_FILE": world["certs"]["ca.pem"],
    }


def counts(log):
    result = {}
    for name in ("a", "b", "slack", "discord", "hub", "smtp", "smtps"):
        result[name] = len(log.of(name))
    return result


def test_each_channel_hears_of_each_entry_once_in_its_own_shape(world, tmp_path):
    log = world["log"]
    org = site(tmp_path, ALL_CHANNELS.format(port=world["port"]))
    write_entry(org, "old", "An old entry", "2026-10-01")
    env = all_env(world)
    before = counts(log)

    first = announce(tmp_path, env)
    assert first.returncode == 0, first.stderr
    assert "first run: 1 published entry taken as already announced" in first.stdout
    assert counts(log) == before, "a first run sends nothing"

    write_entry(org, "long", LONG_TITLE, "2026-11-10", text=LONG_TEXT)
    write_entry(org, "short", "Dark mode", "2026-11-15", summary="The app follows your system.")
    write_entry(org, "scheduled", "Coming soon", "2026-11-21")
    second = announce(tmp_path, env)
    assert second.returncode == 0, second.stderr + second.stdout
    got = {name: counts(log)[name] - before[name] for name in before}
    assert got == {"a": 2, "b": 2, "slack": 2, "discord": 2, "hub": 1, "smtp": 2, "smtps": 1}, second.stdout
    assert log.refused == [], log.refused

    again = announce(tmp_path, env)
    assert again.returncode == 0 and counts(log) == {k: before[k] + v for k, v in got.items()}, again.stdout

    later = announce(tmp_path, env, now=LATER)
    assert later.returncode == 0, later.stderr
    assert counts(log)["slack"] - before["slack"] == 3, "the scheduled entry, once due"

    # Webhooks: one id per org and entry, the same for every channel.
    ids_a = [key for key, _ in log.of("a")]
    ids_b = [key for key, _ in log.of("b")]
    assert ids_a == ids_b and len(set(ids_a)) == len(ids_a)
    entry = log.of("a")[-1][1]
    assert entry["org"] == "acme" and entry["entry"]["id"] == "scheduled"
    assert entry["entry"]["url"] == "https://acme.changelog.example/changelog/scheduled/"

    # Slack and Discord took entries whose title and text exceed their limits, cut.
    long_slack = [p for _, p in log.of("slack") if p["blocks"][0]["text"]["text"].startswith("Webhooks")][0]
    assert long_slack["blocks"][0]["text"]["text"].endswith("…")
    assert len(long_slack["blocks"][1]["text"]["text"]) <= receivers.SLACK_SECTION
    long_discord = [p for _, p in log.of("discord") if p["embeds"][0]["url"].endswith("/long/")][0]
    embed = long_discord["embeds"][0]
    assert embed["title"].endswith("…") and embed["description"].endswith("…")
    assert embed["color"] == 0x6E56CF

    # The hub was told of the three feeds.
    assert log.of("hub")[0][0] == tuple(
        f"https://acme.changelog.example/changelog/{feed}" for feed in ("feed.xml", "atom.xml", "feed.json"))

    # The org's feeds name the hub; a tag's feeds, never pinged, do not.
    built = subprocess.run([str(SHIPLOG), "generate", "--output", "public", "--now", LATER, "--quiet"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    hub = f"http://127.0.0.1:{world['port']}/hub"
    feeds = tmp_path / "public" / "acme" / "changelog"
    assert f'<atom:link href="{hub}" rel="hub"/>' in (feeds / "feed.xml").read_text()
    assert f'<link rel="hub" href="{hub}"/>' in (feeds / "atom.xml").read_text()
    assert json.loads((feeds / "feed.json").read_text())["hubs"] == [{"type": "WebSub", "url": hub}]
    assert "hub" not in (feeds / "tags" / "feature" / "feed.xml").read_text()

    # Mail: both parts, a stable Message-ID, absolute links, no secret.
    assert all(rcpt == ("news@lists.acme.example", "team@acme.example") for rcpt, _ in log.of("smtp"))
    mails = [email.message_from_bytes(content, policy=email.policy.default) for _, content in log.of("smtp")]
    assert len(mails) == 3
    for message in mails:
        assert message["From"] == "Acme Updates <updates@acme.example>"
        # Two recipients: each a blind copy, the mail addressed to the sender.
        assert message["To"] == "Acme Updates <updates@acme.example>" and message["Bcc"] is None
        assert re.fullmatch(r"<[0-9a-f]{32}@acme\.changelog\.example>", message["Message-ID"])
        text = message.get_body(("plain",)).get_content()
        html = message.get_body(("html",)).get_content()
        assert "https://acme.changelog.example/changelog/" in text
        hrefs = re.findall(r'href="([^"]*)"', html)
        assert hrefs and all(h.startswith("https://") for h in hrefs), hrefs
    assert mails[1]["Subject"] == "Acme changelog: Dark mode"
    digest = email.message_from_bytes(log.of("smtps")[0][1], policy=email.policy.default)
    assert digest["Subject"] == "Acme changelog: 2 updates"

    everything = json.dumps([repr(p) for _, _, p in log.got]) + first.stdout + second.stdout \
        + second.stderr + later.stdout + (tmp_path / "state.jsonl").read_text()
    for secret in (receivers.SMTP_PASSWORD, receivers.SECRET, receivers.SECRET[6:]):
        assert secret not in everything


def test_a_repeat_carries_the_same_ids(world, tmp_path):
    """The same state run twice (a repeat a receiver must drop) sends the same webhook-id
    and Message-ID."""
    log = world["log"]
    org = site(tmp_path, ALL_CHANNELS.format(port=world["port"]))
    env = all_env(world)
    assert announce(tmp_path, env).returncode == 0
    write_entry(org, "twice", "Sent twice", "2026-11-18")
    saved = (tmp_path / "state.jsonl").read_text()
    start_a, start_smtp = len(log.of("a")), len(log.of("smtp"))
    assert announce(tmp_path, env).returncode == 0
    (tmp_path / "state.jsonl").write_text(saved)
    assert announce(tmp_path, env).returncode == 0
    ids = [key for key, _ in log.of("a")[start_a:]]
    assert len(ids) == 2 and ids[0] == ids[1]
    message_ids = [email.message_from_bytes(c)["Message-ID"] for _, c in log.of("smtp")[start_smtp:]]
    assert len(message_ids) == 2 and message_ids[0] == message_ids[1]


def test_dry_run_sends_nothing_and_writes_nothing(world, tmp_path):
    log = world["log"]
    org = site(tmp_path, ALL_CHANNELS.format(port=world["port"]))
    env = all_env(world)
    assert announce(tmp_path, env).returncode == 0
    write_entry(org, "new", "New thing", "2026-11-18")
    state = (tmp_path / "state.jsonl").read_text()
    before = counts(log)
    dry = announce(tmp_path, env, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "acme/slack: would send new to 127.0.0.1" in dry.stdout
    assert counts(log) == before
    assert (tmp_path / "state.jsonl").read_text() == state


FAULTS = """announce:
{channels}"""


def fault_channel(name, url_env):
    return f"  - type: webhook\n    name: {name}\n    url_env: {url_env}\n    secret_env: HOOK_SECRET\n    allow_insecure: true\n"


def test_faults_are_retried_as_they_should_and_each_failure_is_named(world, tmp_path):
    log = world["log"]
    port = world["port"]
    kinds = {
        "fails-once": f"http://127.0.0.1:{port}/fault/500-once",
        "rate-limited": f"http://127.0.0.1:{port}/fault/429-once",
        "stalls": f"http://127.0.0.1:{port}/fault/stall",
        "not-found": f"http://127.0.0.1:{port}/fault/404",
        "refused": "http://127.0.0.1:9/refused",
        "bad-tls": f"https://localhost:{world['untrusted_port']}/hook",
    }
    channels = "".join(fault_channel(name, name.upper().replace("-", "_")) for name in kinds)
    org = site(tmp_path, FAULTS.format(channels=channels))
    env = {name.upper().replace("-", "_"): url for name, url in kinds.items()}
    env.update(HOOK_SECRET=receivers.SECRET, SSL_CERT_FILE=world["certs"]["ca.pem"])
    assert announce(tmp_path, env).returncode == 0
    write_entry(org, "news", "News", "2026-11-18")
    run = announce(tmp_path, env, "--timeout", "2", "--tries", "2")
    assert run.returncode == 1, run.stdout + run.stderr
    out = run.stdout + run.stderr
    assert "acme/fails-once: sent news to 127.0.0.1 (2 tries)" in out
    assert "acme/rate-limited: sent news to 127.0.0.1 (2 tries)" in out
    assert "try 1 failed (429 Too Many Requests); trying again in 2 s" in out
    times = [t for _, t in log.of("429-once")]
    assert times[1] - times[0] >= 1.9, "Retry-After: 2 honoured"
    for name, why in [("stalls", "tim"), ("not-found", "HTTP 404 (after 1 try)"),
                      ("refused", "(after 2 tries)"), ("bad-tls", "TLS")]:
        line = [l for l in out.splitlines() if l.startswith(f"acme/{name}: FAILED news")]
        assert line and why in line[0].lower() if why == "tim" else why in line[0], (name, out)
    assert "bad-tls: try" not in out, "a TLS failure is not retried"
    assert "not-found: try" not in out, "a 404 is not retried"
    # A second run tries only what failed.
    rerun = announce(tmp_path, env, "--timeout", "2", "--tries", "1")
    assert rerun.returncode == 1
    assert "fails-once" not in rerun.stdout + rerun.stderr
    assert len(log.of("500-once")) == 2 and len(log.of("429-once")) == 2


@pytest.mark.parametrize("org_yaml,env,where,message", [
    ("announce:\n  - type: slack\n    url: https://hooks.slack.com/services/T/B/x\n", {}, "_org.yaml:3:10",
     "`url` would put a secret in git"),
    ("announce:\n  - type: pager\n", {}, "_org.yaml:2:11", "unknown channel type `pager`"),
    ("announce:\n  - type: slack\n    url_env: ACME_SLACK\n", {}, "_org.yaml:3:14",
     "`url_env`: the environment variable ACME_SLACK is not set"),
    ("announce:\n  - type: slack\n    url_env: ACME_SLACK\n", {"ACME_SLACK": "http://hooks.example/T/secret-token"},
     "_org.yaml:3:14", "`url_env`: ACME_SLACK holds an http:// address (host hooks.example)"),
])
def test_bad_settings_are_located(tmp_path, org_yaml, env, where, message):
    site(tmp_path, org_yaml)
    run = announce(tmp_path, env)
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"content/acme/{where}: {message}" in run.stderr, run.stderr
    assert "secret-token" not in run.stderr + run.stdout
    assert "nothing was sent" in run.stderr
    assert not (tmp_path / "state.jsonl").exists()


def test_slack_text_cannot_ping_or_disguise_a_link(world, tmp_path):
    log = world["log"]
    org = site(tmp_path, "announce:\n  - type: slack\n    url_env: SLACK_URL\n    allow_insecure: true\n")
    env = {"SLACK_URL": f"http://127.0.0.1:{world['port']}/slack"}
    assert announce(tmp_path, env).returncode == 0
    write_entry(org, "ping", "<!channel> look <http://evil.example|here> & <@U123>", "2026-11-18",
                summary="<!here> <http://evil.example|docs>")
    start = len(log.of("slack"))
    run = announce(tmp_path, env)
    assert run.returncode == 0, run.stderr
    payload = log.of("slack")[start][1]
    mrkdwn = [payload["text"], payload["blocks"][1]["text"]["text"], payload["blocks"][2]["elements"][0]["text"]]
    for text in mrkdwn:
        assert "<!" not in text and "<http://evil" not in text and "<@" not in text, text
    assert payload["text"].startswith("Acme changelog: &lt;!channel&gt; look"), payload["text"]
