// The browser proof of the "what's new" widget (SPEC section 5; run by tests/browser/run.sh).
//
// The host page (examples/widget/) and the changelog are served from two origins on two
// loopback ports, so CORS is real, and the host page runs under the CSP
// `default-src 'self'; script-src <org origin>; connect-src <org origin>`. In Debian's
// Chromium, at 320, 768 and 1280 px, light and dark:
//
// - the badge counts the entries of the last 30 days on a first visit, 0 after opening, 1
//   after a new entry is published and the feed fetched again; `shiplog:unread` reports each;
// - one request for the feed per page load (besides the script itself), none elsewhere, no
//   console error, no CSP violation, no layout shift;
// - keyboard: Enter and Space open, focus moves in, Tab stays inside, Escape closes and gives
//   focus back; the trigger's accessible name says the count; axe-core finds nothing with
//   the widget open;
// - isolation: a hostile host style sheet (`* { all: unset }`, `!important` colours, a
//   header at z-index 2147483647) changes nothing in the widget, and the widget nothing in
//   the host page;
// - the XSS corpus' orgs: every title and tag shown as text, nothing runs;
// - failures (404, invalid JSON, network error, a 10 MB feed): no badge, no error.
//
// Budgets, in the report: widget.js gzipped <= 8 KiB; entries drawn within 100 ms of a click
// at 4x CPU throttling with the feed cached. Screenshots: target/screenshots/widget-*.png.
//
//   node tests/browser/widget.mjs SHIPLOG_BINARY CONTENT_DIR XSS_CONTENT_DIR

import { execFileSync } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

import { startServer } from "./server.mjs";
import { harness, isLocal, launchChromium, orgFolders } from "./support.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");
const SCREENSHOTS = join(REPO, "target/screenshots");
const require = createRequire(import.meta.url);
const AXE_SOURCE = await readFile(require.resolve("axe-core/axe.min.js"), "utf8");

const NOW = "2026-11-21T00:00:00Z";
const ORG_PORT = 47841;
const XSS_PORT = 47842;
const HOST_PORT = 47843;
const ORG = "acme";
const WIDTHS = [320, 768, 1280];
const SCHEMES = ["light", "dark"];
const GZIP_BUDGET = 8 * 1024;
const OPEN_BUDGET_MS = 100;

const { check, attempt, finish } = harness();

const orgOrigin = (org, port = ORG_PORT) => `http://${org}.localhost:${port}`;

// --- the two origins ---------------------------------------------------------------

/**
 * The host application: examples/widget/ with its script pointed at the org asked for
 * (`?org=&port=`), under the strict CSP; `/hostile.css` is the hostile style sheet.
 */
function startHost() {
  const server = createServer(async (request, response) => {
    const url = new URL(request.url, "http://localhost");
    const origin = orgOrigin(url.searchParams.get("org") || ORG, Number(url.searchParams.get("port") || ORG_PORT));
    const csp = `default-src 'self'; script-src ${origin}; connect-src ${origin}`;
    let body, type;
    if (url.pathname === "/") {
      body = (await readFile(join(REPO, "examples/widget/index.html"), "utf8")).replaceAll("http://acme.localhost:8080", origin);
      type = "text/html; charset=utf-8";
    } else if (url.pathname === "/app.css") {
      body = await readFile(join(REPO, "examples/widget/app.css"));
      type = "text/css";
    } else if (url.pathname === "/favicon.ico") {
      response.writeHead(204);
      return response.end();
    } else if (url.pathname === "/hostile.css") {
      body = HOSTILE_CSS;
      type = "text/css";
    } else {
      response.writeHead(404, { "content-type": "text/plain" });
      return response.end("not found\n");
    }
    response.writeHead(200, { "content-type": type, "content-security-policy": csp, "cache-control": "no-store" });
    response.end(body);
  });
  return new Promise((done) => server.listen(HOST_PORT, "127.0.0.1", () => done(server)));
}

const HOSTILE_CSS = `
* { all: unset; }
html, body, div, span, b, p, a, li, ol, button, dialog, header, h1, h2 { color: #ff00ff !important; background: #00ff00 !important; font-size: 31px !important; }
header { display: block !important; position: fixed !important; top: 0; left: 0; right: 0; height: 80px; z-index: 2147483647 !important; background: #000 !important; }
span { display: block !important; width: 300px !important; height: 300px !important; }
dialog { display: block !important; position: static !important; }
`;

/** Builds the content copy in `site` into `public` at `now`. */
function build(binary, site, publicDir, now) {
  execFileSync(binary, ["generate", "--content", join(site, "content"), "--config", join(site, "shiplog.yaml"), "--output", publicDir, "--now", now, "-q"]);
}

// --- a watched page ------------------------------------------------------------------

/**
 * A page of `context` with the hooks a check reads: console errors, page errors, CSP
 * violations, layout shifts, `shiplog:unread` events, dialogs and requests (by origin).
 */
async function watchedPage(context, { now = NOW } = {}) {
  const page = await context.newPage();
  await page.clock.setFixedTime(new Date(now));
  const seen = { problems: [], requests: [] };
  page.on("console", (m) => m.type() === "error" && seen.problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => seen.problems.push(`page error: ${e.message}`));
  page.on("dialog", (d) => {
    seen.problems.push(`dialog: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  page.on("request", (r) => seen.requests.push(r.url()));
  await page.route("**/*", (route) => (isLocal(route.request().url()) ? route.continue() : route.abort()));
  await page.addInitScript(() => {
    window.__unread = [];
    window.__csp = [];
    window.__shift = 0;
    window.__errors = [];
    for (const name of ["alert", "confirm", "prompt"]) window[name] = (x) => window.__errors.push(`${name}(${x})`);
    window.__xss = (x) => window.__errors.push(`__xss(${x})`);
    window.addEventListener("error", (e) => window.__errors.push(`onerror: ${e.message}`));
    window.addEventListener("unhandledrejection", (e) => window.__errors.push(`unhandled: ${e.reason}`));
    document.addEventListener("shiplog:unread", (e) => window.__unread.push(e.detail.count));
    document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shift += entry.value;
    }).observe({ type: "layout-shift", buffered: true });
  });
  return { page, seen };
}

/** The widget's state as the page shows it. */
function state(page) {
  return page.evaluate(() => {
    const box = [...document.body.children].find((e) => e.shadowRoot && e.shadowRoot.querySelector("dialog"));
    const dialog = box && box.shadowRoot.querySelector("dialog");
    const trigger = document.getElementById("whats-new");
    const badge = trigger.querySelector("span").shadowRoot.querySelector("b");
    return {
      badge: badge.hidden ? null : badge.textContent,
      label: trigger.getAttribute("aria-label"),
      expanded: trigger.getAttribute("aria-expanded"),
      open: Boolean(dialog && (dialog.open || dialog.matches(":popover-open"))),
      titles: dialog ? [...dialog.querySelectorAll("a.title")].map((a) => a.textContent) : [],
      tags: dialog ? [...dialog.querySelectorAll(".tag")].map((t) => t.textContent) : [],
      focusInside: Boolean(box && box.shadowRoot.activeElement && dialog.contains(box.shadowRoot.activeElement)),
      focusOnTrigger: document.activeElement === trigger,
      unread: window.__unread,
      csp: window.__csp,
      shift: window.__shift,
      errors: window.__errors,
    };
  });
}

/** Waits until the widget is open and its opening animation over (it fades in). */
function settled(page) {
  return page.waitForFunction(() => {
    const box = [...document.body.children].find((e) => e.shadowRoot && e.shadowRoot.querySelector("dialog"));
    const dialog = box && box.shadowRoot.querySelector("dialog");
    const open = dialog && (dialog.open || dialog.matches(":popover-open"));
    return open && dialog.getAnimations().every((a) => a.playState === "finished");
  });
}

/** Waits until the feed is loaded: the first `shiplog:unread` event. */
function loaded(page) {
  return page.waitForFunction(() => window.__unread.length > 0, null, { timeout: 10000 });
}

// --- the checks ----------------------------------------------------------------------

async function layoutChecks(browser, feed) {
  const since = Date.parse(NOW) - 30 * 864e5;
  const recent = feed.items.filter((i) => Date.parse(i.date_published) > since).length;
  const newest = feed.items.slice(0, 10).map((i) => i.title);
  for (const scheme of SCHEMES) {
    for (const width of WIDTHS) {
      const label = `widget ${width}px ${scheme}`;
      await attempt(label, async () => {
        const context = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: scheme });
        const { page, seen } = await watchedPage(context);
        await page.goto(`http://localhost:${HOST_PORT}/`);
        await loaded(page);
        let now = await state(page);
        check(
          `${label}: first visit, the badge counts the ${recent} entries of the last 30 days`,
          recent > 0 && now.badge === String(recent) && now.unread.join() === String(recent),
          `badge ${now.badge}, events ${now.unread}`,
        );
        check(
          `${label}: the trigger's accessible name says the count`,
          (await page.getByRole("button", { name: `What’s new ${recent} new update${recent === 1 ? "" : "s"}`, exact: true }).count()) === 1,
          String(now.label),
        );
        await page.screenshot({ path: join(SCREENSHOTS, `widget-badge-${width}-${scheme}.png`) });
        for (const mode of ["popover", "panel", "modal"]) {
          const trigger = { popover: "#whats-new", panel: "#panel", modal: "#modal" }[mode];
          await page.click(trigger);
          await settled(page);
          const geometry = await page.evaluate(() => {
            const box = [...document.body.children].find((e) => e.shadowRoot && e.shadowRoot.querySelector("dialog"));
            const r = box.shadowRoot.querySelector("dialog").getBoundingClientRect();
            return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, vw: document.documentElement.clientWidth, vh: innerHeight };
          });
          now = await state(page);
          check(
            `${label}: the ${mode} shows the newest entries inside the viewport`,
            now.open &&
              now.titles.join("\n") === newest.join("\n") &&
              geometry.left >= 0 &&
              geometry.right <= geometry.vw + 0.5 &&
              geometry.top >= 0 &&
              geometry.bottom <= geometry.vh + 0.5,
            `${now.titles.length} titles; box ${JSON.stringify(geometry)}`,
          );
          await page.screenshot({ path: join(SCREENSHOTS, `widget-${mode}-${width}-${scheme}.png`) });
          await page.keyboard.press("Escape");
        }
        now = await state(page);
        check(
          `${label}: after opening, the badge is gone and \`shiplog:unread\` said 0`,
          now.badge === null && now.unread.join() === `${recent},0` && !now.open,
          `badge ${now.badge}, events ${now.unread}`,
        );
        const feedRequests = seen.requests.filter((u) => u.startsWith(orgOrigin(ORG)) && u.endsWith("/feed.json"));
        const others = seen.requests.filter(
          (u) => !u.startsWith(`http://localhost:${HOST_PORT}/`) && u !== `${orgOrigin(ORG)}/changelog/widget.js` && !feedRequests.includes(u),
        );
        check(
          `${label}: one request for the feed, none elsewhere; no console error, CSP violation, error or layout shift`,
          feedRequests.length === 1 && others.length === 0 && seen.problems.length === 0 && now.csp.length === 0 && now.errors.length === 0 && now.shift === 0,
          `feed requests ${feedRequests.length}; others ${others}; ${[...seen.problems, ...now.csp, ...now.errors].join("; ")}; shift ${now.shift}`,
        );
        await context.close();
      });
    }
  }
}

/** A new entry is published: the next page load counts 1. */
async function republishCheck(browser, binary, site, publicDir) {
  await attempt("widget after a new entry", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    let { page } = await watchedPage(context);
    await page.goto(`http://localhost:${HOST_PORT}/`);
    await loaded(page);
    await page.click("#whats-new");
    await page.keyboard.press("Escape");
    const later = "2026-11-22T00:00:00Z";
    await writeFile(
      join(site, "content", ORG, "2026-11-21-widget-news.md"),
      "---\ntitle: A badge for what is new\ndate: 2026-11-21T12:00:00Z\ntags: [feature]\n---\nThe widget counts what you have not seen.\n",
    );
    build(binary, site, publicDir, later);
    await page.close();
    ({ page } = await watchedPage(context, { now: later }));
    await page.goto(`http://localhost:${HOST_PORT}/`);
    await loaded(page);
    const now = await state(page);
    check(
      "widget after a new entry is published and the feed fetched again: the badge says 1",
      now.badge === "1" && now.unread.join() === "1" && (await page.getByRole("button", { name: "What’s new 1 new update", exact: true }).count()) === 1,
      `badge ${now.badge}, events ${now.unread}`,
    );
    await context.close();
  });
}

async function keyboardChecks(browser) {
  for (const key of ["Enter", " "]) {
    const label = `widget keyboard (${key === " " ? "Space" : key})`;
    await attempt(label, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const { page } = await watchedPage(context);
      await page.goto(`http://localhost:${HOST_PORT}/`);
      await loaded(page);
      for (let i = 0; i < 10 && !(await state(page)).focusOnTrigger; i++) await page.keyboard.press("Tab");
      await page.keyboard.press(key);
      let now = await state(page);
      check(`${label}: opens, focus moves in, aria-expanded`, now.open && now.focusInside && now.expanded === "true");
      let inside = true;
      for (let i = 0; i < 25; i++) {
        await page.keyboard.press(i % 5 === 4 ? "Shift+Tab" : "Tab");
        inside = inside && (await state(page)).focusInside;
      }
      check(`${label}: Tab and Shift+Tab stay inside the dialog`, inside);
      await page.keyboard.press("Escape");
      now = await state(page);
      check(`${label}: Escape closes and gives focus back to the trigger`, !now.open && now.focusOnTrigger && now.expanded === "false");
      await context.close();
    });
  }
}

async function axeChecks(browser) {
  for (const scheme of SCHEMES) {
    for (const mode of ["popover", "panel", "modal"]) {
      const label = `widget axe ${mode} ${scheme}`;
      await attempt(label, async () => {
        // axe is injected as a script of its own: the host's CSP would refuse it.
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: scheme, bypassCSP: true });
        const { page } = await watchedPage(context);
        await page.goto(`http://localhost:${HOST_PORT}/`);
        await loaded(page);
        await page.addScriptTag({ content: AXE_SOURCE });
        // With the badges showing, then with the widget open.
        const closed = await page.evaluate(async () => (await window.axe.run(document)).violations);
        await page.click({ popover: "#whats-new", panel: "#panel", modal: "#modal" }[mode]);
        await settled(page);
        const violations = [...closed, ...(await page.evaluate(async () => (await window.axe.run(document)).violations))];
        check(
          `${label}: axe-core finds no violation with the badges showing, nor with the widget open`,
          violations.length === 0,
          violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`).join("; "),
        );
        await context.close();
      });
    }
  }
}

/** What the widget draws and what the host shows, as computed styles. */
function looks(page) {
  return page.evaluate(() => {
    const pick = (el, names) => {
      const style = getComputedStyle(el);
      return names.map((n) => style.getPropertyValue(n)).join(" | ");
    };
    const host = ["header.bar", "main h1", ".intro", "#whats-new", "#panel"].map((s) =>
      pick(document.querySelector(s), ["color", "background-color", "font-size", "display", "position", "z-index"]),
    );
    const box = [...document.body.children].find((e) => e.shadowRoot && e.shadowRoot.querySelector("dialog"));
    const dialog = box && box.shadowRoot.querySelector("dialog");
    const widget = dialog
      ? [dialog, dialog.querySelector("h2"), dialog.querySelector("a.title"), dialog.querySelector(".meta")].map((el) =>
          pick(el, ["color", "background-color", "font-size", "display"]),
        )
      : [];
    const rect = dialog && dialog.getBoundingClientRect();
    const top = rect && document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
    return { host, widget, onTop: top === box };
  });
}

async function isolationChecks(browser) {
  const label = "widget isolation";
  await attempt(label, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const measure = async ({ hostile, widget }) => {
      const { page } = await watchedPage(context);
      if (!widget) await page.route("**/widget.js", (route) => route.abort());
      await page.goto(`http://localhost:${HOST_PORT}/`);
      if (hostile) {
        await page.evaluate(() => {
          const link = document.createElement("link");
          link.rel = "stylesheet";
          link.href = "/hostile.css";
          document.head.append(link);
          return new Promise((done) => (link.onload = done));
        });
      }
      if (widget) {
        await loaded(page);
        await page.evaluate(() => window.shiplog.open());
        await settled(page);
      }
      const result = await looks(page);
      await page.screenshot({ path: join(SCREENSHOTS, `widget-isolation-${hostile ? "hostile" : "plain"}-${widget ? "with" : "without"}-widget.png`) });
      await page.close();
      return result;
    };
    const plain = await measure({ hostile: false, widget: true });
    const hostile = await measure({ hostile: true, widget: true });
    const hostileAlone = await measure({ hostile: true, widget: false });
    const plainAlone = await measure({ hostile: false, widget: false });
    check(
      `${label}: a hostile host style sheet changes nothing in the widget, which stays on top of a z-index 2147483647 header`,
      plain.widget.length > 0 && JSON.stringify(hostile.widget) === JSON.stringify(plain.widget) && hostile.onTop && plain.onTop,
      `plain ${JSON.stringify(plain.widget)} / hostile ${JSON.stringify(hostile.widget)} on top ${hostile.onTop}`,
    );
    check(
      `${label}: the widget changes nothing in the host page's styles (plain and hostile)`,
      JSON.stringify(plain.host) === JSON.stringify(plainAlone.host) && JSON.stringify(hostile.host) === JSON.stringify(hostileAlone.host),
      `${JSON.stringify(plain.host)} vs ${JSON.stringify(plainAlone.host)}`,
    );
    await context.close();
  });
}

async function xssChecks(browser, xssPublic) {
  for (const org of await orgFolders(xssPublic)) {
    const label = `widget xss ${org}`;
    await attempt(label, async () => {
      const feed = JSON.parse(await readFile(join(xssPublic, org, "changelog/feed.json"), "utf8"));
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const { page, seen } = await watchedPage(context);
      await page.goto(`http://localhost:${HOST_PORT}/?org=${org}&port=${XSS_PORT}`);
      await loaded(page);
      await page.evaluate(() => window.shiplog.open());
      await page.waitForTimeout(300);
      const now = await state(page);
      const shown = feed.items.filter((i) => /^https?:/.test(i.url)).slice(0, 10);
      const foreign = await page.evaluate(() => {
        const box = [...document.body.children].find((e) => e.shadowRoot && e.shadowRoot.querySelector("dialog"));
        return [...box.shadowRoot.querySelectorAll("*")]
          .filter((el) => !/^(DIALOG|H2|BUTTON|OL|LI|DIV|SPAN|TIME|A|P)$/.test(el.tagName) || [...el.attributes].some((a) => /^on/i.test(a.name)))
          .map((el) => el.outerHTML.slice(0, 80));
      });
      check(
        `${label}: every title and tag shows as written, nothing runs`,
        now.titles.join("\n") === shown.map((i) => i.title).join("\n") &&
          now.tags.join("\n") === shown.flatMap((i) => i.tags.slice(0, 5)).join("\n") &&
          foreign.length === 0 &&
          now.errors.length === 0 &&
          seen.problems.filter((p) => !p.startsWith("console: Failed to load resource")).length === 0,
        `${now.titles.length} titles; foreign ${foreign}; ${[...now.errors, ...seen.problems].join("; ")}`,
      );
      await context.close();
    });
  }
}

async function failureChecks(browser) {
  const cases = {
    "feed 404": (route) => route.fulfill({ status: 404, body: "not found" }),
    "invalid JSON": (route) => route.fulfill({ status: 200, contentType: "application/feed+json", headers: { "access-control-allow-origin": "*" }, body: "{\"items\": [" }),
    "network error": (route) => route.abort("connectionrefused"),
    "a 10 MB feed": (route) =>
      route.fulfill({
        status: 200,
        contentType: "application/feed+json",
        headers: { "access-control-allow-origin": "*" },
        body: JSON.stringify({ version: "https://jsonfeed.org/version/1.1", items: [{ id: "x", title: "x", url: "https://x.example/", date_published: NOW, content_html: "x".repeat(10 * 1024 * 1024) }] }),
      }),
  };
  for (const [name, answer] of Object.entries(cases)) {
    const label = `widget with ${name}`;
    await attempt(label, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const { page } = await watchedPage(context);
      await page.route("**/feed.json", answer);
      await page.goto(`http://localhost:${HOST_PORT}/`);
      await page.waitForLoadState("networkidle");
      const now = await state(page);
      const host = await page.evaluate(() => document.querySelector("main h1").textContent);
      check(
        `${label}: no badge, nothing thrown, the host page unchanged`,
        now.badge === null && now.errors.length === 0 && now.unread.length === 0 && host === "Dashboards",
        `badge ${now.badge}; ${now.errors.join("; ")}`,
      );
      await context.close();
    });
  }
}

/** What an outside attack found, each shown not to happen again. */
async function regressionChecks(browser, feed) {
  const page$ = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const { page, seen } = await watchedPage(context);
    return { context, page, seen };
  };
  await attempt("widget after the page replaces its body", async () => {
    const { context, page } = await page$();
    await page.goto(`http://localhost:${HOST_PORT}/`);
    await loaded(page);
    await page.evaluate(() => (document.body.innerHTML = document.body.innerHTML));
    await page.waitForFunction(() => {
      const b = document.querySelector("#whats-new span");
      return b && b.shadowRoot && !b.shadowRoot.querySelector("b").hidden;
    });
    const names = await page.getByRole("button", { name: /new update/ }).allInnerTexts();
    const doubled = await page.getByRole("button", { name: /updates, \d+ new updates/ }).count();
    await page.click("#whats-new");
    const now = await state(page);
    check(
      "widget after the page replaces its body (Turbo, htmx): the new triggers get a badge and open it, the name said once",
      now.open && now.titles.length === 10 && doubled === 0 && names.length === 3,
      `${names.length} triggers with a count, ${doubled} doubled, open ${now.open}`,
    );
    await context.close();
  });
  await attempt("widget opened before the feed arrives", async () => {
    const { context, page } = await page$();
    let release;
    const held = new Promise((done) => (release = done));
    await page.route("**/feed.json", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`http://localhost:${HOST_PORT}/`);
    await page.click("#whats-new");
    const waiting = await state(page);
    release();
    await page.waitForFunction(() => window.__unread.length >= 2);
    const now = await state(page);
    check(
      "widget opened before the feed arrives: it says it is loading, then shows the entries, and they count as read",
      waiting.open && waiting.titles.length === 0 && now.titles.length === 10 && now.unread.join() === "2,0" && now.badge === null,
      `events ${now.unread}, titles ${now.titles.length}`,
    );
    await context.close();
  });
  await attempt("widget with 250 items", async () => {
    const { context, page } = await page$();
    const items = Array.from({ length: 250 }, (_, n) => ({ ...feed.items[0], id: `e${n}`, date_published: NOW }));
    await page.route("**/feed.json", (route) =>
      route.fulfill({ status: 200, contentType: "application/feed+json", headers: { "access-control-allow-origin": "*" }, body: JSON.stringify({ ...feed, items }) }),
    );
    await page.goto(`http://localhost:${HOST_PORT}/`);
    await loaded(page);
    await page.click("#whats-new");
    await page.keyboard.press("Escape");
    await page.reload();
    await loaded(page);
    const now = await state(page);
    check("widget with 250 items: opening marks all of them read", now.unread.join() === "0" && now.badge === null, `events ${now.unread}`);
    await context.close();
  });
  await attempt("widget summary from HTML", async () => {
    const { context, page, seen } = await page$();
    const item = { ...feed.items[0], summary: undefined, content_html: '<table><tr><td style="text-align: right">Cell &amp; more</td></tr></table><p>Text <b>bold</b></p>' };
    await page.route("**/feed.json", (route) =>
      route.fulfill({ status: 200, contentType: "application/feed+json", headers: { "access-control-allow-origin": "*" }, body: JSON.stringify({ ...feed, items: [item] }) }),
    );
    await page.goto(`http://localhost:${HOST_PORT}/`);
    await loaded(page);
    await page.click("#whats-new");
    const text = await page.evaluate(() => {
      const box = [...document.body.children].find((e) => e.shadowRoot && e.shadowRoot.querySelector("dialog"));
      return box.shadowRoot.querySelector("li p").textContent;
    });
    const now = await state(page);
    check(
      "widget summary from an entry's HTML (styled table cells): its text, and no CSP violation under the strict policy",
      text === "Cell & more Text bold" && now.csp.length === 0 && seen.problems.length === 0,
      `${JSON.stringify(text)}; ${[...now.csp, ...seen.problems].join("; ")}`,
    );
    await context.close();
  });
}

async function budgetChecks(browser, publicDir) {
  await attempt("widget size", async () => {
    const script = await readFile(join(publicDir, ORG, "changelog/widget.js"));
    const gzipped = gzipSync(script, { level: 9 }).length;
    check(`widget.js is at most 8 KiB gzipped`, gzipped <= GZIP_BUDGET, `${gzipped} bytes gzipped (${script.length} bytes)`);
  });
  await attempt("widget open time", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const { page } = await watchedPage(context);
    await page.goto(`http://localhost:${HOST_PORT}/`);
    await loaded(page);
    // The widget draws its list while the page is idle after the feed arrives: a reader
    // clicks after that (the click itself may come first; then it draws on the click).
    await page.waitForFunction(() =>
      [...document.body.children].some((e) => e.shadowRoot && e.shadowRoot.querySelectorAll("dialog li").length > 0),
    );
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
    // Chromium's Event Timing: from a real click to the next frame painted after it (an
    // interaction under 16 ms is not reported, and counts as 16).
    await page.evaluate(() => {
      window.__clicks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (e.name === "click") window.__clicks.push(e.duration);
      }).observe({ type: "event", durationThreshold: 16 });
    });
    const RUNS = 7;
    const entries = [];
    for (let run = 0; run < RUNS; run++) {
      await page.click("#whats-new");
      entries.push(
        await page.evaluate(() => {
          const box = [...document.body.children].find((e) => e.shadowRoot && e.shadowRoot.querySelector("dialog"));
          const open = box.shadowRoot.querySelector("dialog:is([open], :popover-open)");
          return open ? open.querySelectorAll("li a.title").length : 0;
        }),
      );
      await page.keyboard.press("Escape");
      // The next click comes once the page is idle again and the list drawn ahead.
      await page.evaluate(() => new Promise((done) => requestIdleCallback(() => requestAnimationFrame(() => done()))));
    }
    await page.waitForFunction((n) => window.__clicks.length >= n, RUNS, { timeout: 5000 }).catch(() => {});
    const times = await page.evaluate((n) => [...window.__clicks, ...Array(n).fill(16)].slice(0, n), RUNS);
    const sorted = [...times].sort((x, y) => x - y);
    const median = sorted[RUNS >> 1];
    check(
      `widget draws the entries within ${OPEN_BUDGET_MS} ms of a click at 4x CPU throttling (median of ${RUNS}, Event Timing)`,
      median <= OPEN_BUDGET_MS && entries.every((n) => n > 0),
      `median ${median} ms, worst ${sorted[RUNS - 1]} ms: ${times.join(", ")} ms; entries shown ${entries.join(", ")}`,
    );
    await context.close();
  });
}

// --- main -------------------------------------------------------------------------

async function main() {
  const [binary, content, xssContent] = process.argv.slice(2);
  if (!binary || !content || !xssContent) {
    console.error("usage: node tests/browser/widget.mjs SHIPLOG_BINARY CONTENT_DIR XSS_CONTENT_DIR");
    process.exit(2);
  }
  await mkdir(SCREENSHOTS, { recursive: true });
  // Each content folder is copied and built for its own port (the widget reads its org's URL).
  const site = await mkdtemp(join(tmpdir(), "shiplog-widget-"));
  const publicDir = join(site, "public");
  const xssSite = join(site, "xss");
  const xssPublic = join(xssSite, "public");
  for (const [from, to, port] of [
    [content, site, ORG_PORT],
    [xssContent, xssSite, XSS_PORT],
  ]) {
    await cp(from, join(to, "content"), { recursive: true });
    await writeFile(join(to, "shiplog.yaml"), `org_url: http://{org}.localhost:${port}\n`);
  }
  build(binary, site, publicDir, NOW);
  build(binary, xssSite, xssPublic, NOW);
  const feed = JSON.parse(await readFile(join(publicDir, ORG, "changelog/feed.json"), "utf8"));

  const servers = [
    await startServer({ publicDir, port: ORG_PORT, headersFile: true }),
    await startServer({ publicDir: xssPublic, port: XSS_PORT, headersFile: true }),
    await startHost(),
  ];
  const browser = await launchChromium();
  try {
    await budgetChecks(browser, publicDir);
    await layoutChecks(browser, feed);
    await keyboardChecks(browser);
    await axeChecks(browser);
    await isolationChecks(browser);
    await failureChecks(browser);
    await xssChecks(browser, xssPublic);
    await regressionChecks(browser, feed);
    await republishCheck(browser, binary, site, publicDir);
  } finally {
    await browser.close();
    servers.forEach((s) => s.close());
    await rm(site, { recursive: true, force: true });
  }
  console.log(`screenshots in ${SCREENSHOTS.replace(REPO + "/", "")}/widget-*.png`);
  process.exit(finish("widget"));
}

try {
  await main();
} catch (error) {
  check("the widget checks ran to the end", false, String(error && error.stack ? error.stack : error));
  finish("widget");
  process.exit(1);
}
