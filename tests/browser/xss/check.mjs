// The XSS proof (run by tests/browser/run.sh after building the content that
// xss/generate.mjs wrote): every generated page of the XSS orgs is loaded in Debian's
// Chromium with hooks installed before any page script, and nothing may run.
//
// - Hooks: `__xss`, `alert`, `confirm`, `prompt` and `print` report instead of acting; a
//   dialog that still opens is recorded and dismissed; a report-only Content Security
//   Policy that allows only the theme's own script reports any other script, handler or
//   `javascript:` URL that runs, without blocking it; requests that leave localhost,
//   navigations, pop-ups, page errors and console errors are recorded.
// - Belt and braces, a scan of the DOM: no script but the theme's, no `on*` attribute, no
//   `javascript:`/`vbscript:`/`data:` URL, no frame, object, form, base, meta refresh,
//   style element or style attribute from content, links out only as target=_blank with
//   rel=noopener.
// - Every title, tag, summary, org title and description shows as exactly the text that
//   was written (escaped, never interpreted, never evaluated as a template).
// - The feeds: RSS parses as XML with every text field plain text, and both feeds' HTML
//   passes the same scan.
// - The embed host page with each XSS org in its iframe, and hostile `?theme=` and `#`
//   addresses.
// - A control run proves the detectors work: each vector put straight into a page (as HTML,
//   and inside quoted and unquoted attributes) must set off a hook or the scan, unless
//   vectors.json marks it as needing Markdown, a template engine or an old browser.
//
// Prints one line per check and closes with `xss: N passed, M failed`; exits 1 on any failure.
//
//   node tests/browser/xss/check.mjs PUBLIC_DIR CONFIG_FILE

import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { startServer } from "../server.mjs";
import { harness, htmlFiles, isLocal, launchChromium } from "../support.mjs";
import { loadVectors, plan } from "./generate.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../../..");
/** Pages loaded at once. */
const PARALLEL = 4;

const { check, attempt, finish } = harness();

/** The theme's inline script as it appears in a page: `embed.js` without its tera comment. */
async function themeScript() {
  const source = await readFile(join(REPO, "themes/default/embed.js"), "utf8");
  return "\n" + source.replace(/^\{#[\s\S]*?#\}/, "");
}

/**
 * A report-only policy for the org pages: only the theme's script may run. Chromium reports
 * every other script, event handler or `javascript:` URL as it runs (without stopping it).
 */
function reportOnlyPolicy(script) {
  const hash = createHash("sha256").update(script).digest("base64");
  return [
    "default-src 'none'",
    // The theme's inline script, and the changelog's own search script (on listing pages).
    `script-src 'sha256-${hash}' http://*.localhost:*/changelog/search.js`,
    "connect-src 'self'",
    "style-src 'unsafe-inline'",
    "img-src http: https:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

const policyHeader = (policy) => ({ "content-security-policy-report-only": policy });

// Runs in every frame before any of its scripts: the hooks report through the binding.
function installHooks() {
  const report = (kind, detail) => {
    try {
      window.__xssReport(kind, String(detail));
    } catch {
      // The binding is missing only where no page script can run either.
    }
  };
  Object.defineProperty(window, "__xss", { value: (id) => report("__xss", id) });
  for (const name of ["alert", "confirm", "prompt", "print"]) {
    Object.defineProperty(window, name, { value: (arg) => report(name, arg) });
  }
  document.addEventListener("securitypolicyviolation", (event) =>
    report("csp", `${event.violatedDirective} ${event.blockedURI} ${event.sample}`),
  );
}

/**
 * The DOM scan, run in the page (it is passed as source text). `root` is scanned with all
 * its descendants; with `theme`, the head may hold the theme's meta, title, link, style and
 * its one script (whose text must be `theme.script`; links only canonical, alternate and icon), and the feed icon's SVG,
 * the search box in the header and the script tag that loads it are allowed.
 * Returns one line per problem.
 */
function scanDom(root, theme) {
  const problems = [];
  const FORBIDDEN = new Set(
    ("script style iframe frame frameset object embed applet base form button textarea select " +
      "option isindex portal template noscript xmp plaintext noembed noframes meta link title " +
      "math svg foreignobject animate set animatetransform animatemotion use image marquee " +
      "audio video source picture param").split(" "),
  );
  const URL_ATTRIBUTES = new Set(
    ("href xlink:href src action formaction data srcset poster background lowsrc dynsrc " +
      "codebase ping cite longdesc values to from by").split(" "),
  );
  const BAD_SCHEME = /^(javascript|vbscript|data|livescript|mocha):/;
  const LINK_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);
  const describe = (el) => {
    const article = el.closest && el.closest("article[id]");
    return `<${el.localName}>${article ? ` in #${article.id}` : ""}`;
  };
  const inThemeHead = (el) => theme && el.parentElement === document.head;
  const inFeedIcon = (el) => theme && el.closest && el.closest("nav.feeds > a > svg");
  // The search box that search.js puts in the header, and the script tag that loads it.
  const inSearchBox = (el) => theme && el.closest && el.closest("header.site > form.search");
  const isSearchScript = (el) =>
    theme && el.localName === "script" && el.parentElement && el.parentElement.localName === "main" &&
    el.attributes.length === 2 && el.hasAttribute("defer") && /^(\.\/|(\.\.\/)+)search\.js$/.test(el.getAttribute("src")) &&
    el.textContent === "";
  let themeScripts = 0;
  for (const el of [root, ...root.querySelectorAll("*")]) {
    const name = el.localName;
    if (inThemeHead(el)) {
      if (name === "script") {
        themeScripts += 1;
        if (el.textContent !== theme.script || el.attributes.length > 0) problems.push("a script in <head> that is not the theme's");
      } else if (name === "meta" && el.hasAttribute("http-equiv")) {
        problems.push(`<meta http-equiv="${el.getAttribute("http-equiv")}"> in <head>`);
      } else if (name === "link" && !["canonical", "alternate", "icon"].includes(el.getAttribute("rel"))) {
        problems.push(`<link rel="${el.getAttribute("rel")}"> in <head>`);
      } else if (!["meta", "title", "link", "style", "script"].includes(name)) {
        problems.push(`${describe(el)} in <head>`);
      }
    } else if (
      FORBIDDEN.has(name) &&
      !(inFeedIcon(el) && ["svg", "circle", "path"].includes(name)) &&
      !(inSearchBox(el) && name === "form") &&
      !isSearchScript(el)
    ) {
      problems.push(`${describe(el)} element`);
    }
    if (name === "input" && el.getAttribute("type") !== "checkbox" && !(inSearchBox(el) && el.type === "search")) {
      problems.push(`${describe(el)} that is not a checkbox`);
    }
    for (const { name: attribute, value } of el.attributes) {
      const lower = attribute.toLowerCase();
      // What a URL parser sees: control characters and spaces anywhere are dropped.
      const squeezed = value.replace(/[\u0000-\u0020\u007f]/g, "").toLowerCase();
      if (lower.startsWith("on")) problems.push(`${describe(el)} with ${attribute}="${value}"`);
      else if (lower === "srcdoc" || lower === "http-equiv") problems.push(`${describe(el)} with ${attribute}`);
      else if (URL_ATTRIBUTES.has(lower) && (BAD_SCHEME.test(squeezed) || /[\s,]+(javascript|vbscript|data):/.test(value.toLowerCase())))
        problems.push(`${describe(el)} with ${attribute}="${value}"`);
      else if (lower === "style" && !/^text-align: (left|center|right)$/.test(value))
        problems.push(`${describe(el)} with style="${value}"`);
      else if (lower === "target" && (value !== "_blank" || !/\bnoopener\b/.test(el.getAttribute("rel") || "")))
        problems.push(`${describe(el)} with target="${value}" rel="${el.getAttribute("rel")}"`);
    }
    if ((name === "a" || name === "area") && el.hasAttribute("href") && !LINK_PROTOCOLS.has(el.protocol)) {
      problems.push(`${describe(el)} linking to ${el.protocol} (${el.getAttribute("href")})`);
    }
    if (name === "img" && el.hasAttribute("src") && !/^https?:/.test(el.src)) {
      problems.push(`${describe(el)} with src ${el.getAttribute("src")}`);
    }
  }
  if (theme && themeScripts !== 1) problems.push(`${themeScripts} scripts in <head>, the theme has 1`);
  return problems;
}

/** Waits until the page has settled: images loaded or failed, two frames painted, timers of 0 ms run. */
function settle() {
  const pending = [...document.images]
    .filter((image) => !image.complete)
    .map((image) => new Promise((done) => {
      image.addEventListener("load", done, { once: true });
      image.addEventListener("error", done, { once: true });
    }));
  return Promise.all(pending)
    .then(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))))
    .then(() => new Promise((done) => setTimeout(done, 50)));
}

/** How long a page may take to load, to settle, or to be inspected. */
const DEADLINE_MS = 15000;

/** `promise`, or a failure naming `what` once `DEADLINE_MS` have passed. */
function deadline(promise, what) {
  let timer;
  const late = new Promise((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what} took longer than ${DEADLINE_MS / 1000} s`)), DEADLINE_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** `url` without its fragment. */
const withoutFragment = (url) => new URL(url).href.replace(/#.*$/, "");

/**
 * `PARALLEL` watched pages in one browser context. `visitAll(jobs)` loads each job's `url`
 * in turn in one of them, lets it settle, runs the job's `inspect(page)` and resolves, in
 * the order of the jobs, to what fired (`hits`) and every other problem (`problems`).
 */
async function watchedPages(browser) {
  const context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
  const current = new Map();
  const record = (page, line) => current.get(page)?.hits.push(line);
  const pageOf = (request) => {
    try {
      return request.frame().page();
    } catch {
      return null; // a service worker's request: none of the pages registers one
    }
  };
  await context.exposeBinding("__xssReport", ({ page }, kind, detail) => record(page, `${kind}(${detail})`));
  await context.addInitScript(installHooks);
  // Chromium resolves no other host (see main), so these requests go nowhere.
  context.on("request", (request) => {
    if (!isLocal(request.url())) record(pageOf(request), `request to ${request.url()} (${request.resourceType()})`);
  });
  context.on("page", async (page) => {
    const opener = await page.opener();
    if (opener) record(opener, `pop-up opened: ${page.url()}`);
  });

  async function watchedPage() {
    const page = await context.newPage();
    page.on("dialog", (dialog) => {
      record(page, `dialog ${dialog.type()}(${dialog.message()})`);
      dialog.dismiss().catch(() => {});
    });
    page.on("pageerror", (error) => record(page, `page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
        record(page, `console error: ${message.text()}`);
      }
    });
    page.on("framenavigated", (frame) => {
      const visiting = current.get(page);
      if (visiting && frame === page.mainFrame() && withoutFragment(frame.url()) !== withoutFragment(visiting.url)) {
        record(page, `navigated to ${frame.url()}`);
      }
    });
    return page;
  }

  /** Visits one job in `page`; resolves to the result and the page to go on with. */
  async function visit(page, { url, inspect }) {
    const result = { url, hits: [], problems: [] };
    current.set(page, result);
    let stuck = false;
    try {
      await page.goto(url, { waitUntil: "load", timeout: DEADLINE_MS });
      await deadline(page.evaluate(settle), "settling");
      for (const frame of page.frames().slice(1)) await deadline(frame.evaluate(settle), "settling").catch(() => {});
      if (inspect) result.problems.push(...(await deadline(inspect(page), "inspecting")));
    } catch (error) {
      stuck = true;
      result.hits.push(`the page did not stay put: ${String(error.message).split("\n")[0]}`);
    } finally {
      current.delete(page);
    }
    if (!stuck) return { result, page };
    // A page that missed its deadline may hang on: the next job gets a fresh one.
    page.close({ runBeforeUnload: false }).catch(() => {});
    return { result, page: await watchedPage() };
  }

  async function visitAll(jobs) {
    const results = new Array(jobs.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        let page = await watchedPage();
        while (next < jobs.length) {
          const index = next++;
          ({ result: results[index], page } = await visit(page, jobs[index]));
        }
        await page.close();
      }),
    );
    return results;
  }
  return { visitAll, close: () => context.close() };
}

/** The DOM scan of a page's whole document, against the theme. */
const scanPage = (theme) => (page) => page.evaluate(`(${scanDom})(document.documentElement, ${JSON.stringify(theme)})`);

// --- what a page must show ----------------------------------------------------------

/**
 * The page a generated file is: `{ org, kind, entry?, number }` with kind `changelog`,
 * `tag` or `entry`, from its path under the output folder.
 */
function pageKind(path, orgsBySlug) {
  const [slug, changelog, ...rest] = path.split("/");
  const org = orgsBySlug.get(slug);
  if (!org || changelog !== "changelog") return null;
  const page = (parts) => (parts[0] === "page" ? Number(parts[1]) : 1);
  if (rest[0] === "tags") return { org, kind: "tag", number: page(rest.slice(2)) };
  if (rest[0] === "index.html" || rest[0] === "page") return { org, kind: "changelog", number: page(rest) };
  return { org, kind: "entry", entry: org.entries.find((e) => e.id === rest[0]), number: 1 };
}

// Runs in the page: the texts that came from content, as the reader sees them.
function shownTexts() {
  const text = (selector, root = document) => root.querySelector(selector)?.textContent ?? null;
  return {
    documentTitle: document.title,
    description: document.querySelector('meta[name="description"]')?.getAttribute("content") ?? null,
    orgTitle: text("header.site h1 a") ?? text("header.site p.name a"),
    lead: text("header.site p.lead"),
    tag: text(".filter .tag"),
    articles: [...document.querySelectorAll("article.entry")].map((article) => ({
      id: article.id,
      title: text("h1, h2", article),
      tags: [...article.querySelectorAll("ul.tags li")].map((li) => li.textContent),
      summary: text("p.summary", article),
      content: text(".content", article),
    })),
  };
}

/** `document.title` as Chromium gives it: ASCII white space collapsed and trimmed. */
const collapsed = (text) => text.replace(/[\t\n\f\r ]+/g, " ").replace(/^ | $/g, "");

/** Where the texts a page shows differ from what the content says; empty when they all match. */
function textProblems(shown, page) {
  const problems = [];
  const expect = (what, actual, wanted) => {
    if (actual !== wanted) problems.push(`${what}: shows ${JSON.stringify(actual)}, wrote ${JSON.stringify(wanted)}`);
  };
  const { org } = page;
  expect("org title", shown.orgTitle, org.title);
  expect("org description", shown.lead, org.description);
  const allTags = new Set(org.entries.flatMap((e) => e.tags));
  if (page.kind === "tag" && !allTags.has(shown.tag)) problems.push(`tag ${JSON.stringify(shown.tag)} is no tag of the content`);
  const titleParts = {
    entry: () => [page.entry.shown, org.title],
    changelog: () => [org.title],
    tag: () => [shown.tag, org.title],
  }[page.kind]();
  const suffix = page.number > 1 ? ` (page ${page.number})` : "";
  expect("document title", shown.documentTitle, collapsed(titleParts.join(" · ") + suffix));
  if (page.kind === "entry" && page.entry.summary != null) {
    expect("meta description", shown.description, page.entry.summary);
  } else if (page.kind === "entry") {
    // Without a summary, the description is the start of the entry's own text, cut
    // between words: the page's text, as the reader sees it, starts with it.
    const squeezed = (text) => (text ?? "").replace(/\s+/g, "");
    const start = squeezed((shown.description ?? "").replace(/\u2026$/, ""));
    const body = squeezed(shown.articles[0]?.content);
    if (!start || !body.startsWith(start)) {
      problems.push(`meta description: shows ${JSON.stringify(shown.description)}, not the start of the entry's text`);
    }
  }
  else if (page.kind === "changelog") expect("meta description", shown.description, org.description);
  if (shown.articles.length === 0) problems.push("no entry on the page");
  for (const article of shown.articles) {
    const entry = org.entries.find((e) => e.id === article.id);
    if (!entry) {
      problems.push(`an article #${article.id} that is no entry`);
      continue;
    }
    expect(`${entry.id} title`, article.title, entry.shown);
    expect(`${entry.id} tags`, JSON.stringify(article.tags), JSON.stringify(entry.tags));
    expect(`${entry.id} summary`, article.summary, entry.summary);
  }
  return problems;
}

// --- the checks ----------------------------------------------------------------------

/** Every generated page of the XSS orgs: nothing fires, the scan is clean, the texts match. */
async function pageChecks(watched, publicDir, orgUrl, orgs, theme) {
  const orgsBySlug = new Map(orgs.map((org) => [org.slug, org]));
  const pages = [];
  for (const file of await htmlFiles(publicDir)) {
    const path = relative(publicDir, file).split("\\").join("/");
    const page = pageKind(path, orgsBySlug);
    if (!page) continue;
    const [slug, ...rest] = path.split("/");
    const url = new URL(rest.join("/").replace(/index\.html$/, ""), orgUrl.replace("{org}", slug) + "/").href;
    pages.push({ ...page, path, url });
  }
  const results = await watched.visitAll(
    pages.map((page) => ({
      url: page.url,
      inspect: async (p) => [...(await scanPage(theme)(p)), ...textProblems(await p.evaluate(shownTexts), page)],
    })),
  );
  for (const kind of ["changelog", "tag", "entry"]) {
    const bad = [];
    let count = 0;
    pages.forEach((page, i) => {
      if (page.kind !== kind) return;
      count += 1;
      const { hits, problems } = results[i];
      if (page.kind === "entry" && !page.entry) problems.push("a page of no planned entry");
      if (hits.length || problems.length) bad.push(`${page.path}: ${[...hits, ...problems].slice(0, 6).join("; ")}`);
    });
    check(
      `${kind} pages: nothing runs, the DOM holds no script, handler or dangerous URL, every text shows as written`,
      count > 0 && bad.length === 0,
      bad.length ? `${bad.length} of ${count} pages:\n       ${bad.slice(0, 25).join("\n       ")}` : `${count} pages`,
    );
  }
  for (const org of orgs) {
    const entryPages = new Set(pages.filter((p) => p.org === org && p.kind === "entry").map((p) => p.entry?.id));
    const missing = org.entries.filter((e) => !entryPages.has(e.id)).map((e) => e.id);
    check(`${org.slug}: every entry of the content has its page`, missing.length === 0, missing.join(", "));
  }
}

// Runs in a blank page: both feeds of one listing, parsed; their HTML scanned as fragments.
function feedFacts({ rss, json, scan }) {
  const scanHtml = (html) => new Function("root", "theme", `return (${scan})(root, theme)`)(
    new DOMParser().parseFromString(html, "text/html").body,
    null,
  );
  const xml = new DOMParser().parseFromString(rss, "application/xml");
  const problems = [];
  if (xml.querySelector("parsererror")) problems.push("feed.xml does not parse");
  const plain = (el, what) => {
    if (el && el.children.length) problems.push(`feed.xml ${what} holds elements`);
    return el ? el.textContent : null;
  };
  const channelTitle = plain(xml.querySelector("channel > title"), "channel title");
  plain(xml.querySelector("channel > description"), "channel description");
  const rssItems = [...xml.querySelectorAll("item")].map((item) => {
    const description = plain(item.querySelector("description"), "item description");
    problems.push(...scanHtml(description ?? "").map((p) => `feed.xml ${plain(item.querySelector("link"), "link")}: ${p}`));
    return {
      title: plain(item.querySelector("title"), "item title"),
      tags: [...item.querySelectorAll("category")].map((c) => plain(c, "category")),
    };
  });
  const feed = JSON.parse(json);
  for (const item of feed.items) problems.push(...scanHtml(item.content_html).map((p) => `feed.json ${item.id}: ${p}`));
  return { problems, channelTitle, jsonTitle: feed.title, rssItems, jsonItems: feed.items };
}

/** Every feed of the XSS orgs: texts survive exactly, the HTML is sanitized. */
async function feedChecks(browser, publicDir, orgs) {
  const page = await browser.newPage();
  const bad = [];
  let feeds = 0;
  for (const org of orgs) {
    const folders = [...new Set(
      (await htmlFiles(join(publicDir, org.slug, "changelog")))
        .map((file) => relative(join(publicDir, org.slug, "changelog"), dirname(file)).split("\\").join("/"))
        .filter((dir) => dir === "" || /^tags\/[^/]+$/.test(dir)),
    )];
    for (const folder of folders) {
      const base = join(publicDir, org.slug, "changelog", folder);
      const facts = await page.evaluate(feedFacts, {
        rss: await readFile(join(base, "feed.xml"), "utf8"),
        json: await readFile(join(base, "feed.json"), "utf8"),
        scan: String(scanDom),
      });
      feeds += 2;
      const where = `${org.slug}/changelog/${folder}`;
      const problems = [...facts.problems];
      if (folder === "" ? facts.channelTitle !== org.title : !facts.channelTitle.startsWith(`${org.title} \u2014 `)) {
        problems.push(`RSS channel title ${JSON.stringify(facts.channelTitle)}`);
      }
      if (facts.jsonTitle !== facts.channelTitle) problems.push(`JSON Feed title ${JSON.stringify(facts.jsonTitle)}`);
      facts.jsonItems.forEach((item, i) => {
        const entry = org.entries.find((e) => e.id === item.id);
        const rssItem = facts.rssItems[i] ?? {};
        const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
        if (!entry) problems.push(`an item ${item.id} that is no entry`);
        else if (
          !same([item.title, item.tags, item.summary ?? null], [entry.shown, entry.tags, entry.summary]) ||
          !same([rssItem.title, rssItem.tags], [entry.shown, entry.tags])
        ) {
          problems.push(`${item.id}: title, tags or summary differ from the content`);
        }
      });
      if (problems.length) bad.push(`${where}: ${problems.slice(0, 6).join("; ")}`);
    }
  }
  await page.close();
  check(
    "feeds: RSS text fields are plain text, titles, tags and summaries survive exactly, the HTML of both feeds is sanitized",
    feeds > 0 && bad.length === 0,
    bad.length ? bad.slice(0, 20).join("\n       ") : `${feeds} feeds`,
  );
}

/** The embed example with each XSS org's changelog in its iframe: nothing fires in either frame. */
async function embedChecks(watched, helperOrigin, orgs, theme) {
  const results = await watched.visitAll(
    orgs.map((org) => ({
      url: `${helperOrigin}/embed/${org.slug}`,
      inspect: async (page) => {
        const frame = await (await page.waitForSelector("iframe#changelog")).contentFrame();
        await frame.waitForLoadState("load");
        await frame.evaluate(settle);
        if (!frame.url().includes(`//${org.slug}.localhost:`)) return [`the frame shows ${frame.url()}`];
        return frame.evaluate(`(${scanDom})(document.documentElement, ${JSON.stringify(theme)})`);
      },
    })),
  );
  orgs.forEach((org, i) => {
    const { hits, problems } = results[i];
    check(`embed: ${org.slug} in the example's iframe runs nothing`, hits.length + problems.length === 0, [...hits, ...problems].join("; "));
  });
}

/** Hostile `?theme=` and fragments on a changelog page: the theme's script writes none of it into the page. */
async function addressChecks(watched, orgUrl, orgs, theme) {
  const changelog = `${orgUrl.replace("{org}", orgs[0].slug)}/changelog/`;
  const probes = [
    "?theme=<script>alert(901)</script>",
    '?theme=dark&x="><svg onload=alert(902)>',
    "?theme=light#<img src=x onerror=alert(903)>",
    "?theme=javascript:alert(904)",
    "#\"><img src=x onerror=alert(905)>",
  ];
  const results = await watched.visitAll(probes.map((probe) => ({ url: changelog + probe, inspect: scanPage(theme) })));
  probes.forEach((probe, i) => {
    const { hits, problems } = results[i];
    check(`address ${probe}: nothing runs`, hits.length + problems.length === 0, [...hits, ...problems].join("; "));
  });
}

// --- the control run ------------------------------------------------------------------

/**
 * A vector's control page: the payload unsanitized inside a double-quoted, a single-quoted
 * and an unquoted attribute value, then as HTML in the body.
 */
function controlPage(payload) {
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>control</title></head><body>` +
    `<p><a href="https://example.org/" title="${payload}">double</a></p>` +
    `<p><a href="https://example.org/" title='${payload}'>single</a></p>` +
    `<p><a href="https://example.org/" title=${payload}>unquoted</a></p>` +
    `<div>${payload}</div></body></html>`
  );
}

/**
 * Each vector straight in a page, unsanitized: a vector of context `html` must set off a
 * hook or the scan there, or the detectors could not see it in the real pages either.
 */
async function controlChecks(watched, helperOrigin, vectors) {
  const results = await watched.visitAll(
    vectors.map((vector) => ({
      url: `${helperOrigin}/control/${vector.id}`,
      inspect: (page) => page.evaluate(`(${scanDom})(document.body, null)`),
    })),
  );
  const byContext = new Map();
  vectors.forEach((vector, i) => {
    const entry = byContext.get(vector.context) ?? { total: 0, caught: 0, ran: 0, missed: [] };
    entry.total += 1;
    if (results[i].hits.length > 0) entry.ran += 1;
    if (results[i].hits.length + results[i].problems.length > 0) entry.caught += 1;
    else entry.missed.push(vector);
    byContext.set(vector.context, entry);
  });
  const html = byContext.get("html") ?? { total: 0, caught: 0, missed: [] };
  check(
    "control: every vector of context html, put into a page unsanitized, sets off a hook or the scan",
    html.total > 0 && html.missed.length === 0,
    html.missed.length
      ? `missed: ${html.missed.map((v) => `${v.id} ${v.payload}`).join("\n       ")}`
      : "caught (of which set off a hook): " +
          [...byContext].map(([context, e]) => `${context} ${e.caught}/${e.total} (${e.ran})`).join(", "),
  );
}

/**
 * The pages the test makes itself, on `helperOrigin`: `/control/<n>` (vector n's control
 * page, under the same report-only policy as the org pages) and `/embed/<org>` (the embed
 * example with that org's changelog in its frame).
 */
async function startHelper({ vectors, policy, port }) {
  const example = await readFile(join(REPO, "examples/embed/index.html"), "utf8");
  const server = createServer((request, response) => {
    const [, kind, name] = new URL(request.url, "http://localhost").pathname.split("/");
    const vector = kind === "control" ? vectors[Number(name) - 1] : null;
    const html = vector
      ? controlPage(vector.payload)
      : kind === "embed" && /^[a-z0-9-]+$/.test(name)
        ? example.replaceAll("//acme.localhost:8080", `//${name}.localhost:${port}`)
        : null;
    response.writeHead(html ? 200 : 404, {
      "content-type": "text/html; charset=utf-8",
      ...(vector ? policyHeader(policy) : {}),
    });
    response.end(html ?? "not found\n");
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  return { server, origin: `http://localhost:${server.address().port}` };
}

// --- main -------------------------------------------------------------------------

async function main() {
  const [publicDir, configFile] = process.argv.slice(2);
  if (!publicDir || !configFile) {
    console.error("usage: node tests/browser/xss/check.mjs PUBLIC_DIR CONFIG_FILE");
    process.exit(2);
  }
  const orgUrl = /^org_url:\s*(\S+)/m.exec(await readFile(configFile, "utf8"))[1];
  const port = Number(new URL(orgUrl.replace("{org}", "x")).port);
  const vectors = await loadVectors();
  const orgs = plan(vectors);
  const families = new Set(vectors.map((v) => v.family));
  check(`the corpus: ${vectors.length} vectors in ${families.size} families`, vectors.length >= 100 && families.size >= 15);

  const script = await themeScript();
  const theme = { script };
  const policy = reportOnlyPolicy(script);
  const server = await startServer({ publicDir, port, pageHeaders: policyHeader(policy) });
  const helper = await startHelper({ vectors, policy, port });
  // Only this machine resolves: a request a payload makes to any other host goes nowhere.
  const browser = await launchChromium([
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE *.localhost, EXCLUDE 127.0.0.1",
  ]);
  try {
    const watched = await watchedPages(browser);
    await attempt("pages", () => pageChecks(watched, publicDir, orgUrl, orgs, theme));
    await attempt("feeds", () => feedChecks(browser, publicDir, orgs));
    await attempt("embed", () => embedChecks(watched, helper.origin, orgs, theme));
    await attempt("addresses", () => addressChecks(watched, orgUrl, orgs, theme));
    await attempt("control", () => controlChecks(watched, helper.origin, vectors));
    await watched.close();
  } finally {
    await browser.close();
    server.close();
    helper.server.close();
  }
  process.exit(finish("xss"));
}

try {
  await main();
} catch (error) {
  check("the XSS checks ran to the end", false, String(error && error.stack ? error.stack : error));
  finish("xss");
  process.exit(1);
}
