#!/usr/bin/env python3
"""Does a near-miss API key take measurably different time to refuse than a random one?

Usage: python3 scripts/auth_timing.py HOST:PORT VALID_KEY [--samples N] [--max-diff-us US]

Against a running shiplog-api that accepts VALID_KEY, sends N requests with a near-miss
key (VALID_KEY with its last character changed) and N with a random key of the same length
and prefix, interleaved in random order over one kept-alive connection each, timing every
request from the first byte sent to the last byte of the 401 read. Then it prints:

* the median and quartiles of each class, in microseconds;
* the difference of medians (near-miss minus random) with its 99% bootstrap confidence
  interval;
* the Mann-Whitney U test (normal approximation, two-sided) and its p-value.

Exits 1 when the difference is both statistically significant (the 99% interval excludes 0)
and larger than --max-diff-us (default 2 microseconds, far below what a network can carry
but far above the nanoseconds a byte-by-byte compare would leak per byte); 0 otherwise.

Standard library only.
"""

from __future__ import annotations

import argparse
import math
import random
import socket
import statistics
import sys
import time


def connect(host: str, port: int) -> socket.socket:
    sock = socket.create_connection((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.settimeout(10)
    return sock


def timed_request(sock: socket.socket, request: bytes) -> float:
    """Sends one request, reads its whole response, returns the seconds taken."""
    started = time.perf_counter_ns()
    sock.sendall(request)
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("the server closed the connection")
        buffer += chunk
    head, _, body = buffer.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("the server closed the connection")
        body += chunk
    elapsed = time.perf_counter_ns() - started
    status = int(head.split(b" ", 2)[1])
    if status != 401:
        raise RuntimeError(f"expected 401 for a wrong key, got {status}")
    return elapsed / 1000.0


def near_miss(key: str) -> str:
    last = key[-1]
    return key[:-1] + ("0" if last != "0" else "1")


def random_key(key: str, rng: random.Random) -> str:
    prefix = "shl_" if key.startswith("shl_") else ""
    alphabet = "0123456789abcdef"
    return prefix + "".join(rng.choice(alphabet) for _ in range(len(key) - len(prefix)))


def mann_whitney(a: list[float], b: list[float]) -> tuple[float, float]:
    """U statistic of `a` and the two-sided p-value (normal approximation, tie-corrected)."""
    combined = sorted([(x, 0) for x in a] + [(x, 1) for x in b])
    ranks = [0.0] * len(combined)
    tie_term = 0.0
    i = 0
    while i < len(combined):
        j = i
        while j + 1 < len(combined) and combined[j + 1][0] == combined[i][0]:
            j += 1
        rank = (i + j) / 2 + 1
        for k in range(i, j + 1):
            ranks[k] = rank
        t = j - i + 1
        tie_term += t**3 - t
        i = j + 1
    n1, n2 = len(a), len(b)
    rank_sum_a = sum(r for r, (_, group) in zip(ranks, combined) if group == 0)
    u = rank_sum_a - n1 * (n1 + 1) / 2
    mean = n1 * n2 / 2
    n = n1 + n2
    variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)))
    z = (u - mean) / math.sqrt(variance) if variance > 0 else 0.0
    p = math.erfc(abs(z) / math.sqrt(2))
    return u, p


def bootstrap_median_diff(
    a: list[float], b: list[float], rng: random.Random, rounds: int = 2000
) -> tuple[float, float]:
    """99% percentile interval of median(a) - median(b)."""
    diffs = []
    for _ in range(rounds):
        sample_a = [a[rng.randrange(len(a))] for _ in range(len(a))]
        sample_b = [b[rng.randrange(len(b))] for _ in range(len(b))]
        diffs.append(statistics.median(sample_a) - statistics.median(sample_b))
    diffs.sort()
    return diffs[int(0.005 * rounds)], diffs[int(0.995 * rounds) - 1]


def quartiles(values: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(values, n=4)
    return q[0], q[1], q[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("addr", help="HOST:PORT of a running shiplog-api")
    parser.add_argument("key", help="a key the server accepts")
    parser.add_argument("--samples", type=int, default=5000, help="requests per class")
    parser.add_argument("--max-diff-us", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args()
    host, _, port = args.addr.rpartition(":")
    rng = random.Random(args.seed)

    keys = {"near-miss": near_miss(args.key), "random": random_key(args.key, rng)}
    assert len(keys["near-miss"]) == len(keys["random"]) == len(args.key)
    requests = {
        name: (
            f"GET /api/v1/changelogs HTTP/1.1\r\nHost: {args.addr}\r\n"
            f"Authorization: Bearer {key}\r\n\r\n"
        ).encode()
        for name, key in keys.items()
    }
    sockets = {name: connect(host, int(port)) for name in keys}
    # Warm-up: connections, caches, the server's allocator.
    for _ in range(300):
        for name in keys:
            timed_request(sockets[name], requests[name])
    order = ["near-miss"] * args.samples + ["random"] * args.samples
    rng.shuffle(order)
    times: dict[str, list[float]] = {name: [] for name in keys}
    for name in order:
        times[name].append(timed_request(sockets[name], requests[name]))
    for sock in sockets.values():
        sock.close()

    near, rand = times["near-miss"], times["random"]
    for name, values in times.items():
        q1, median, q3 = quartiles(values)
        print(f"{name:>9}: n={len(values)} median {median:.1f} us (quartiles {q1:.1f}-{q3:.1f})")
    diff = statistics.median(near) - statistics.median(rand)
    low, high = bootstrap_median_diff(near, rand, rng)
    u, p = mann_whitney(near, rand)
    print(f"median difference (near-miss - random): {diff:+.2f} us, 99% CI [{low:+.2f}, {high:+.2f}]")
    print(f"Mann-Whitney U = {u:.0f}, p = {p:.3f}")
    significant = low > 0 or high < 0
    if significant and min(abs(low), abs(high)) > args.max_diff_us:
        print(f"FAIL: a near-miss key is refused measurably differently (> {args.max_diff_us} us)")
        return 1
    print(
        "ok: no difference beyond "
        f"{args.max_diff_us} us between a near-miss and a random key"
        + (" (the difference is significant but smaller than that)" if significant else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
