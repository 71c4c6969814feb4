// The browser proof of the changelog pages (run by tests/browser/run.sh after a build):
//
// - the embed example (examples/embed/) in Debian's Chromium at 320, 768 and 1280 px, light
//   and dark: the entries render inside the iframe, nothing scrolls sideways, no console
//   error, no request leaves localhost, links out of the changelog open a new tab, the
//   auto-height message arrives and sizes the frame;
// - the pages on their own: the same layout checks, `?theme=`, and that they work with
//   JavaScript off;
// - axe-core: no serious or critical violation on a changelog page, an entry page and a
//   tag page, in both colour schemes;
// - the Nu HTML checker: no error in any generated page (nor in the embed example);
// - page weight: page 1 without its entries' own content stays under 12 KB.
//
// Screenshots go to target/screenshots/. Prints one line per check and closes with
// `browser: N passed, M failed`; exits 1 if any check failed.
//
//   node tests/browser/check.mjs PUBLIC_DIR CONFIG_FILE

import { mkdir, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { startServer } from "./server.mjs";
import { axeViolations, harness, htmlFiles, isLocal, launchChromium, orgFolders, vnuErrors } from "./support.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");
const SCREENSHOTS = join(REPO, "target/screenshots");

const WIDTHS = [320, 768, 1280];
const SCHEMES = ["light", "dark"];
const BACKGROUND = { light: "rgb(255, 255, 255)", dark: "rgb(15, 17, 23)" };
const WEIGHT_BUDGET = 12 * 1024;
const EMBEDDED_ORG = "acme";

const { check, attempt, finish } = harness();

// --- helpers ----------------------------------------------------------------------

/** A page that records console errors, page errors and requests that leave localhost. */
async function watchedPage(context) {
  const page = await context.newPage();
  const problems = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (isLocal(url)) return route.continue();
    problems.push(`request left localhost: ${url}`);
    return route.abort();
  });
  return { page, problems };
}

/** Sideways overflow of a frame's document, in pixels (0 when nothing scrolls sideways). */
function overflowX(frame) {
  return frame.evaluate(() => {
    const root = document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/** Elements wider than the viewport, for a readable failure message. */
function tooWide(frame) {
  return frame.evaluate(() =>
    [...document.querySelectorAll("body *")]
      .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
  );
}

function pageBackground(frame) {
  return frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
}

/**
 * A screenshot of the whole page. The viewport is stretched to the page's height first:
 * Chromium does not paint an iframe from another site beyond the viewport in a full-page
 * capture.
 */
async function fullScreenshot(page, name) {
  const { width } = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width, height });
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(SCREENSHOTS, name) });
}

// --- the checks -------------------------------------------------------------------

async function embedChecks(browser, origin, feed) {
  const expectedTitles = feed.items.map((item) => item.title);
  for (const scheme of SCHEMES) {
    for (const width of WIDTHS) {
      const label = `embed ${width}px ${scheme}`;
      await attempt(label, async () => {
        const context = await browser.newContext({
          viewport: { width, height: 900 },
          colorScheme: scheme,
        });
        await context.addInitScript(() => {
          window.__heights = [];
          window.addEventListener("message", (event) => {
            if (event.data && event.data.type === "shiplog:height") window.__heights.push(event.data);
          });
        });
        const { page, problems } = await watchedPage(context);
        await page.goto(origin + "/", { waitUntil: "load" });
        const iframe = page.locator("iframe#changelog");
        const frame = await (await iframe.elementHandle()).contentFrame();
        await frame.waitForLoadState("load");
        await page.waitForFunction(() => window.__heights.length > 0, null, { timeout: 10000 });
        await page.waitForTimeout(300);

        const titles = await frame.locator("article.entry h2").allInnerTexts();
        check(
          `${label}: entries render inside the iframe`,
          titles.length > 0 &&
            titles.every((title, i) => title === expectedTitles[i]) &&
            (await frame.locator("article.entry").first().isVisible()),
          `${titles.length} entries`,
        );
        check(
          `${label}: the frame shows the ${scheme} scheme`,
          (await pageBackground(frame)) === BACKGROUND[scheme],
          await pageBackground(frame),
        );
        const frameOverflow = await overflowX(frame);
        check(
          `${label}: no horizontal scroll in the frame`,
          frameOverflow <= 0,
          frameOverflow > 0 ? `${frameOverflow}px too wide: ${await tooWide(frame)}` : "",
        );
        check(`${label}: no horizontal scroll on the host page`, (await overflowX(page.mainFrame())) <= 0);

        const heights = await page.evaluate(() => window.__heights);
        const last = heights[heights.length - 1];
        const frameHeight = await iframe.evaluate((el) => el.getBoundingClientRect().height);
        const inner = await frame.evaluate(() => ({
          scroll: document.documentElement.scrollHeight,
          client: document.documentElement.clientHeight,
        }));
        check(
          `${label}: the auto-height message arrives and sizes the frame`,
          last.height > 0 && Math.abs(frameHeight - last.height) <= 1 && inner.scroll <= inner.client + 1,
          `height ${last.height}px (frame ${Math.round(frameHeight)}px, content ${inner.scroll}px)`,
        );

        const links = await frame.locator(".content a[href], .feeds a[href]").evaluateAll((all) =>
          all.map((a) => ({ href: a.href, target: a.target, rel: a.rel })),
        );
        check(
          `${label}: every link out of the changelog opens a new tab (target=_blank, rel=noopener)`,
          links.length > 0 && links.every((l) => l.target === "_blank" && /\bnoopener\b/.test(l.rel)),
          `${links.length} links`,
        );
        const entryLink = frame.locator(".content a[href]").first();
        const href = await entryLink.evaluate((a) => a.href);
        const frameUrl = frame.url();
        // The link may lead to the org's website, a host this machine cannot reach: what
        // counts is that the new tab asks for it.
        const asked = context
          .waitForEvent("request", { predicate: (request) => request.url() === href, timeout: 5000 })
          .then(() => true, () => false);
        const [popup] = await Promise.all([context.waitForEvent("page"), entryLink.click()]);
        await popup.waitForLoadState("domcontentloaded").catch(() => {});
        check(
          `${label}: an entry's link opens in a new tab, the frame stays`,
          (popup.url() === href || (await asked)) && popup !== page && frame.url() === frameUrl,
          `${href}`,
        );
        await popup.close();

        await fullScreenshot(page, `embed-${width}-${scheme}.png`);
        check(`${label}: no console error, no request outside localhost`, problems.length === 0, problems.join("; "));
        await context.close();
      });
    }
  }
}

/**
 * What the auto-height frame gets right for a reader: `?header=off` hides the page's title
 * block (not from screen readers) and carries over; another page inside a tall frame brings
 * the frame's top into view; no height is posted while the frame has no width.
 */
async function embedCorrectionChecks(browser, origin, orgOrigin) {
  await attempt("embed ?header=off", async () => {
    const context = await browser.newContext({ viewport: { width: 768, height: 600 } });
    const { page, problems } = await watchedPage(context);
    await page.goto(origin + "/", { waitUntil: "load" });
    const frame = await (await page.locator("iframe#changelog").elementHandle()).contentFrame();
    await frame.waitForLoadState("load");
    const brand = await frame.locator(".brand").boundingBox();
    const heading = await frame.getByRole("heading", { level: 1 }).count();
    const older = await frame.locator(".pages a[rel=next]").getAttribute("href");
    check(
      "embed ?header=off: the title block is hidden from sight, not from screen readers, and the parameter carries over",
      brand.height <= 1 && heading === 1 && (await frame.locator(".feeds").isVisible()) && older.endsWith("?header=off"),
      `brand ${JSON.stringify(brand)}, h1 ${heading}, older ${older}`,
    );
    // Scrolled down the host page, the reader follows "Older" inside the frame.
    await page.waitForFunction(() => document.getElementById("changelog").getBoundingClientRect().height > 1000, null, { timeout: 10000 });
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const before = await page.evaluate(() => document.getElementById("changelog").getBoundingClientRect().top);
    await frame.locator(".pages a[rel=next]").click();
    await page.waitForFunction(() => document.getElementById("changelog").getBoundingClientRect().top > -1, null, { timeout: 10000 });
    check(
      "embed: another page inside the frame brings the frame's top into view",
      before < 0 && frame.url().includes("/changelog/page/2/"),
      `frame top ${Math.round(before)}px before, at ${frame.url()}`,
    );
    check("embed ?header=off: no console error, no request outside localhost", problems.length === 0, problems.join("; "));
    await context.close();
  });
  await attempt("embed height before width", async () => {
    const context = await browser.newContext({ viewport: { width: 768, height: 600 } });
    const { page, problems } = await watchedPage(context);
    await page.goto(origin + "/", { waitUntil: "load" });
    const posted = await page.evaluate(async (src) => {
      const heights = [];
      const frame = document.createElement("iframe");
      addEventListener("message", (event) => {
        if (event.source === frame.contentWindow && event.data && event.data.type === "shiplog:height") heights.push(event.data.height);
      });
      const holder = document.createElement("div");
      holder.style.display = "none";
      frame.title = "hidden changelog";
      frame.src = src;
      holder.append(frame);
      document.body.append(holder);
      await new Promise((done) => frame.addEventListener("load", done, { once: true }));
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      const whileHidden = heights.length;
      frame.style.width = "600px";
      holder.style.display = "block";
      // In view: Chromium does not draw a frame of another site while it is off screen.
      holder.scrollIntoView();
      const deadline = Date.now() + 10000;
      while (!heights.length && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
      return { whileHidden, first: heights[0] };
    }, `${orgOrigin}/changelog/`);
    const hidden = await (await page.locator('iframe[title="hidden changelog"]').elementHandle()).contentFrame();
    const real = await hidden.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
    check(
      "embed: no height is posted while the frame is hidden; the first one is the real one",
      posted.whileHidden === 0 && posted.first > 0 && real === posted.first,
      `${posted.whileHidden} posted while hidden; first ${posted.first}px, laid out ${real}px`,
    );
    check("embed height before width: no console error", problems.length === 0, problems.join("; "));
    await context.close();
  });
}

async function pageChecks(browser, pages) {
  for (const scheme of SCHEMES) {
    for (const width of [320, 1280]) {
      for (const [name, path] of pages) {
        const label = `${name} ${width}px ${scheme}`;
        await attempt(label, async () => {
          const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
          const { page, problems } = await watchedPage(context);
          await page.goto(path, { waitUntil: "load" });
          const overflow = await overflowX(page.mainFrame());
          check(
            `${label}: renders without horizontal scroll`,
            (await page.locator("article.entry").count()) > 0 && overflow <= 0,
            overflow > 0 ? `${overflow}px too wide: ${await tooWide(page.mainFrame())}` : "",
          );
          await fullScreenshot(page, `${name}-${width}-${scheme}.png`);
          check(`${label}: no console error, no request outside localhost`, problems.length === 0, problems.join("; "));
          await context.close();
        });
      }
    }
  }
}

async function themeParameterChecks(browser, orgOrigin) {
  for (const [emulated, chosen] of [
    ["light", "dark"],
    ["dark", "light"],
  ]) {
    const label = `?theme=${chosen} under a ${emulated} system scheme`;
    await attempt(label, async () => {
      const context = await browser.newContext({ viewport: { width: 768, height: 900 }, colorScheme: emulated });
      const { page, problems } = await watchedPage(context);
      await page.goto(`${orgOrigin}/changelog/?theme=${chosen}`);
      const internal = await page.locator("article.entry h2 a").first().getAttribute("href");
      await page.locator(".pages a[rel=next]").click();
      await page.waitForLoadState("load");
      check(
        `${label}: applies, and follows the changelog's own links`,
        (await pageBackground(page.mainFrame())) === BACKGROUND[chosen] &&
          internal.endsWith(`?theme=${chosen}`) &&
          page.url().endsWith(`/changelog/page/2/?theme=${chosen}`),
        `${await pageBackground(page.mainFrame())} at ${page.url()}`,
      );
      check(`${label}: no console error`, problems.length === 0, problems.join("; "));
      await context.close();
    });
  }
  await attempt("without JavaScript", async () => {
    const context = await browser.newContext({ viewport: { width: 768, height: 900 }, javaScriptEnabled: false });
    const { page } = await watchedPage(context);
    await page.goto(`${orgOrigin}/changelog/`);
    const entries = await page.locator("article.entry").count();
    await page.locator(".pages a[rel=next]").click();
    await page.waitForLoadState("load");
    check(
      "without JavaScript: entries render and pagination works",
      entries > 0 && page.url().endsWith("/changelog/page/2/") && (await page.locator("article.entry").count()) > 0,
      `${entries} entries on page 1`,
    );
    await context.close();
  });
}

async function axeChecks(browser, pages) {
  for (const scheme of SCHEMES) {
    for (const [name, path] of pages) {
      const label = `axe ${name} ${scheme}`;
      await attempt(label, async () => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
        const page = await context.newPage();
        await page.goto(path, { waitUntil: "load" });
        const violations = await axeViolations(page);
        const summary = violations.map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes)`);
        const blocking = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
        check(
          `${label}: no serious or critical violation`,
          blocking.length === 0,
          summary.length ? `all violations: ${summary.join(", ")}` : "no violation at all",
        );
        await context.close();
      });
    }
  }
}

async function vnuCheck(publicDir) {
  await attempt("vnu", async () => {
    const files = [...(await htmlFiles(publicDir)), join(REPO, "examples/embed/index.html")];
    const messages = await vnuErrors(files);
    check(
      `vnu: zero errors in ${files.length} pages`,
      messages.length === 0,
      messages
        .slice(0, 20)
        .map((m) => `${m.url.replace("file:" + REPO + "/", "")}:${m.lastLine}: ${m.message}`)
        .join("\n       "),
    );
  });
}

/**
 * Page 1 of each org without its entries' own content (what the entry files hold: title,
 * summary, tags and body) stays under the budget: styles, script, header, navigation and
 * the markup around each entry all count.
 */
async function weightChecks(publicDir) {
  const bytes = (text) => Buffer.byteLength(text || "");
  for (const org of await orgFolders(publicDir)) {
    await attempt(`page weight ${org}`, async () => {
      const html = await readFile(join(publicDir, org, "changelog/index.html"), "utf8");
      const feed = JSON.parse(await readFile(join(publicDir, org, "changelog/feed.json"), "utf8"));
      const ids = [...html.matchAll(/<article class="entry" id="([^"]+)"/g)].map((m) => m[1]);
      const own = feed.items
        .filter((item) => ids.includes(item.id))
        .reduce(
          (sum, item) => sum + bytes(item.content_html) + bytes(item.title) + bytes(item.summary) + bytes(item.tags.join("")),
          0,
        );
      // Highlighted code is the entry's code: its token spans, and the token colours that
      // come only with them, count with the entries' content.
      const tokens = [...html.matchAll(/<span class="hl-[a-z]">/g)].reduce((sum, m) => sum + bytes(m[0]) + bytes("</span>"), 0);
      const colours = bytes((html.match(/\.hl-c\{[^\n]*\n/) || [""])[0]);
      const total = bytes(html) - tokens - colours;
      const part = (open, close) => bytes(html.slice(html.indexOf(open), html.indexOf(close) + close.length));
      const articles = [...html.matchAll(/<article[\s\S]*?<\/article>/g)].reduce((sum, m) => sum + bytes(m[0]), 0);
      check(
        `page weight ${org}: page 1 without its ${ids.length} entries' own content is under 12 KB`,
        ids.length > 0 && total - own < WEIGHT_BUDGET,
        `${total - own} bytes (page ${total} without ${tokens + colours} of code tokens and their colours, entries' own content ${own}; style ${part("<style>", "</style>")}, ` +
          `script ${part("<script>", "</script>")}, everything outside the entries ${total - articles}, ` +
          `markup around each entry ${Math.round((articles - own) / ids.length)})`,
      );
    });
  }
}

/** Page 1 asks the server for nothing but itself and the entries' images. */
async function requestCheck(browser, orgOrigin) {
  await attempt("requests", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const requests = [];
    page.on("request", (request) => requests.push(request));
    await page.goto(`${orgOrigin}/changelog/`, { waitUntil: "load" });
    // The search's script is the changelog's own; its index waits for the box's focus.
    const search = `${orgOrigin}/changelog/search.js`;
    const others = requests.filter(
      (r) => r.resourceType() !== "image" && r.url() !== `${orgOrigin}/changelog/` && r.url() !== search,
    );
    check(
      "page 1 loads no stylesheet, script, font or other file but its search script",
      others.length === 0,
      others.map((r) => `${r.resourceType()} ${r.url()}`).join(", "),
    );
    await context.close();
  });
}

// --- main -------------------------------------------------------------------------

async function main() {
  const [publicDir, configFile] = process.argv.slice(2);
  if (!publicDir || !configFile) {
    console.error("usage: node tests/browser/check.mjs PUBLIC_DIR CONFIG_FILE");
    process.exit(2);
  }
  const orgUrl = /^org_url:\s*(\S+)/m.exec(await readFile(configFile, "utf8"))[1];
  const port = Number(new URL(orgUrl.replace("{org}", "x")).port);
  const origin = `http://localhost:${port}`;
  const orgOrigin = orgUrl.replace("{org}", EMBEDDED_ORG);
  await mkdir(SCREENSHOTS, { recursive: true });

  const server = await startServer({ publicDir, port });
  const browser = await launchChromium();
  try {
    const feed = JSON.parse(await readFile(join(publicDir, EMBEDDED_ORG, "changelog/feed.json"), "utf8"));
    const entry = new URL(feed.items.find((item) => /<(pre|table|img)\b/.test(item.content_html)).url).pathname;
    const tag = feed.items[0].tags[0];
    const pages = [
      ["changelog", `${orgOrigin}/changelog/`],
      ["changelog-page-2", `${orgOrigin}/changelog/page/2/`],
      ["entry", orgOrigin + entry],
      ["tag", `${orgOrigin}/changelog/tags/${encodeURIComponent(tag)}/`],
    ];
    const otherOrgs = (await orgFolders(publicDir))
      .filter((org) => org !== EMBEDDED_ORG)
      .map((org) => [`${org}-changelog`, `${orgUrl.replace("{org}", org)}/changelog/`]);
    await embedChecks(browser, origin, feed);
    await embedCorrectionChecks(browser, origin, orgOrigin);
    await pageChecks(browser, [...pages, ...otherOrgs]);
    await themeParameterChecks(browser, orgOrigin);
    await requestCheck(browser, orgOrigin);
    await axeChecks(browser, [...pages.filter(([name]) => name !== "changelog-page-2"), ...otherOrgs]);
  } finally {
    await browser.close();
    server.close();
  }
  await vnuCheck(publicDir);
  await weightChecks(publicDir);
  console.log(`screenshots in ${SCREENSHOTS.replace(REPO + "/", "")}/`);
  process.exit(finish("browser"));
}

try {
  await main();
} catch (error) {
  check("the browser checks ran to the end", false, String(error && error.stack ? error.stack : error));
  finish("browser");
  process.exit(1);
}
