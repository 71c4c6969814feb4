// The proof that no file published beside the entries can run script on the changelog's
// host (run by tests/browser/run.sh). An SVG is the one published type a browser runs script
// in; every server of the tree sends it with a sandboxing Content-Security-Policy. Here an SVG
// whose `onload` and `<script>` mark the document is opened directly in Debian's Chromium:
//
// - from `shiplog serve`, the real preview server;
// - with exactly the headers `public/_headers` gives `/*.svg` (what Netlify and Cloudflare
//   Pages send; scripts/nginx-check.sh checks that nginx sends the same);
// - and, as a control that proves the detector works, with no policy: there the script runs.
//
//   node tests/browser/assets.mjs SHIPLOG_BINARY HEADERS_FILE
//
// Prints one line per check and closes with `assets: N passed, M failed`.

import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { harness, launchChromium } from "./support.mjs";

const { check, attempt, finish } = harness();

/** Marks the document when its script runs, by the handler and by a script element. */
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"
  onload="document.documentElement.setAttribute('data-onload', 'ran')">
  <script>document.documentElement.setAttribute('data-script', 'ran')</script>
  <circle cx="20" cy="20" r="10" fill="teal"/>
</svg>
`;

/** How long a server may take to start. */
const START_MS = 60_000;

/** Starts `shiplog serve --port 0` on a content folder holding the SVG; gives its port. */
async function startPreview(binary, content) {
  const child = spawn(binary, ["serve", "--port", "0", "--content", content], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const port = await new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`shiplog serve did not start:\n${seen}`)), START_MS);
    child.stderr.on("data", (chunk) => {
      seen += chunk;
      const found = /serving on http:\/\/localhost:(\d+)/.exec(seen);
      if (found) {
        clearTimeout(timer);
        resolve(Number(found[1]));
      }
    });
    child.on("exit", (code) => reject(new Error(`shiplog serve exited ${code}:\n${seen}`)));
  });
  return { child, port };
}

/** A loopback server answering every request with the SVG and `headers`; gives its port. */
async function startPlain(headers) {
  const server = createServer((_, response) => {
    response.writeHead(200, { "content-type": "image/svg+xml", ...headers });
    response.end(SVG);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: server.address().port };
}

/** The headers `_headers` gives the paths of `/*.svg`. */
async function svgRule(headersFile) {
  const lines = (await readFile(headersFile, "utf8")).split("\n");
  const headers = {};
  let inside = false;
  for (const line of lines) {
    if (/^\S/.test(line)) inside = line.trim() === "/*.svg";
    else if (inside && line.includes(":")) {
      const at = line.indexOf(":");
      headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
    }
  }
  return headers;
}

/** Opens `url` in a fresh page and says which of the SVG's scripts ran. */
async function scriptsThatRan(browser, url) {
  const page = await browser.newPage();
  try {
    const response = await page.goto(url, { waitUntil: "load" });
    const ran = await page.evaluate(() =>
      ["data-onload", "data-script"].filter((name) => document.documentElement.getAttribute(name) === "ran"),
    );
    return { status: response.status(), ran };
  } finally {
    await page.close();
  }
}

async function main() {
  const [binary, headersFile] = process.argv.slice(2);
  const work = await mkdtemp(join(tmpdir(), "shiplog-assets-"));
  const content = join(work, "content");
  await mkdir(join(content, "acme"), { recursive: true });
  await writeFile(join(content, "acme/ok.md"), "---\ntitle: OK\ndate: 2026-11-01\ntags: [x]\n---\nSee the logo.\n");
  await writeFile(join(content, "acme/evil.svg"), SVG);

  const preview = await startPreview(binary, content);
  const rule = await svgRule(headersFile);
  const hosted = await startPlain(rule);
  const control = await startPlain({});
  const browser = await launchChromium();
  try {
    await attempt("shiplog serve: an SVG with script runs none of it", async () => {
      const { status, ran } = await scriptsThatRan(browser, `http://acme.localhost:${preview.port}/changelog/evil.svg`);
      check("shiplog serve: an SVG with script runs none of it", status === 200 && ran.length === 0, `status ${status}, ran: [${ran}]`);
    });
    await attempt("public/_headers: an SVG with script runs none of it", async () => {
      const policy = rule["content-security-policy"] ?? "";
      const { status, ran } = await scriptsThatRan(browser, `http://127.0.0.1:${hosted.port}/acme/changelog/evil.svg`);
      check("public/_headers: an SVG with script runs none of it", policy.includes("sandbox") && status === 200 && ran.length === 0, `policy "${policy}", ran: [${ran}]`);
    });
    await attempt("control: without the policy the same SVG's scripts run", async () => {
      const { ran } = await scriptsThatRan(browser, `http://127.0.0.1:${control.port}/evil.svg`);
      check("control: without the policy the same SVG's scripts run", ran.length === 2, `ran: [${ran}]`);
    });
  } finally {
    await browser.close();
    preview.child.kill("SIGTERM");
    hosted.server.close();
    control.server.close();
    await rm(work, { recursive: true, force: true });
  }
  process.exit(finish("assets"));
}

await main();
