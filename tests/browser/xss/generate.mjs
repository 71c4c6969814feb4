// Writes the XSS content folder: every vector of vectors.json placed in an entry's title,
// tags, summary and body, across a few orgs whose `_org.yaml` title and description carry
// vectors too. `plan()` is the single source of what each field holds; xss/check.mjs uses it
// to know what the built pages must show.
//
//   node tests/browser/xss/generate.mjs CONTENT_DIR
//
// `$ID` in a payload becomes the vector's number, so a hook that fires names its vector.
// A field takes a payload only where the SPEC lets it: titles and tags are one line
// without control characters, a summary may hold line breaks and tabs, a body anything.

import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

const ORGS = ["xss-one", "xss-two", "xss-three", "xss-four"];

/**
 * The vectors an org's `_org.yaml` carries: [family, ordinal within the family] for its
 * title (which ends up in `<title>`, headings and feed titles) and its description (a
 * `<meta content>` attribute, the lead paragraph and the feeds).
 */
const ORG_FIELDS = [
  { title: ["attribute-breaking", 0], description: ["attribute-breaking", 6] },
  { title: ["attribute-breaking", 1], description: ["comment-cdata", 0] },
  { title: ["attribute-breaking", 2], description: ["template-injection", 0] },
  { title: ["template-injection", 2], description: ["mutation-xss", 0] },
];

const FIRST_DATE = Date.UTC(2026, 0, 1);
const HOUR = 3600 * 1000;

/** The vectors of vectors.json, numbered from 1, with `$ID` replaced by that number. */
export async function loadVectors() {
  const raw = JSON.parse(await readFile(join(HERE, "vectors.json"), "utf8"));
  return raw.map((vector, index) => ({
    ...vector,
    id: index + 1,
    payload: vector.payload.replaceAll("$ID", String(index + 1)),
  }));
}

// Rust's `char::is_control` (category Cc) and `str::trim` (White_Space), as shiplog applies them.
const CONTROL = /\p{Cc}/u;
const CONTROL_BUT_LINES = /[^\P{Cc}\n\t]/u;
const rustTrim = (text) => text.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, "");

/** Whether a title or tag may be `text`: one line, no control characters, not blank. */
const fitsLine = (text) => !CONTROL.test(text) && rustTrim(text) !== "";
/** Whether a summary may be `text`: control characters only as line breaks and tabs. */
const fitsSummary = (text) => !CONTROL_BUT_LINES.test(text) && rustTrim(text) !== "";

/**
 * What the content folder holds: per org its slug, title, description and entries, each
 * entry with `id`, `vector` (its number), `date`, and the `title`, `tags`, `summary` and
 * `body` as written in the file; `shown` is the title as shiplog shows it (trimmed).
 */
export function plan(vectors) {
  const byFamily = (family, ordinal) => {
    const found = vectors.filter((v) => v.family === family)[ordinal];
    if (!found || !fitsLine(found.payload)) throw new Error(`no one-line vector ${family}[${ordinal}]`);
    return found.payload;
  };
  return ORGS.map((slug, orgIndex) => {
    const fields = ORG_FIELDS[orgIndex];
    const entries = vectors
      .filter((_, index) => index % ORGS.length === orgIndex)
      .map((vector) => {
        const { id, family, payload } = vector;
        const title = fitsLine(payload) ? payload : `Vector ${id} (${family})`;
        return {
          id: `v${String(id).padStart(3, "0")}`,
          vector: id,
          date: new Date(FIRST_DATE + id * HOUR).toISOString().replace(".000Z", "Z"),
          title,
          shown: rustTrim(title),
          tags: fitsLine(payload) ? [payload, family] : [family],
          summary: fitsSummary(payload) ? payload : null,
          body: payload.includes("\n") ? `${payload}\n` : `${payload}\n\nInline: before ${payload} after.\n`,
        };
      });
    return {
      slug,
      title: byFamily(...fields.title),
      description: byFamily(...fields.description),
      entries,
    };
  });
}

/** `text` as a YAML double-quoted scalar: everything but printable ASCII escaped. */
function yamlString(text) {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0);
    if (char === '"' || char === "\\") out += "\\" + char;
    else if (code >= 0x20 && code < 0x7f) out += char;
    else if (code <= 0xffff) out += "\\u" + code.toString(16).padStart(4, "0");
    else out += "\\U" + code.toString(16).padStart(8, "0");
  }
  return out + '"';
}

function entryFile(entry) {
  const lines = [
    "---",
    `title: ${yamlString(entry.title)}`,
    `date: ${entry.date}`,
    `tags: [${entry.tags.map(yamlString).join(", ")}]`,
  ];
  if (entry.summary !== null) lines.push(`summary: ${yamlString(entry.summary)}`);
  lines.push("---", "", entry.body);
  return lines.join("\n");
}

/** Writes the planned orgs into `dir`, replacing whatever it held. */
export async function writeContent(orgs, dir) {
  await rm(dir, { recursive: true, force: true });
  for (const org of orgs) {
    const folder = join(dir, org.slug);
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, "_org.yaml"),
      `title: ${yamlString(org.title)}\ndescription: ${yamlString(org.description)}\n`,
    );
    for (const entry of org.entries) {
      await writeFile(join(folder, `${entry.id}.md`), entryFile(entry));
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: node tests/browser/xss/generate.mjs CONTENT_DIR");
    process.exit(2);
  }
  const vectors = await loadVectors();
  const orgs = plan(vectors);
  await writeContent(orgs, dir);
  const count = (test) => vectors.filter((v) => test(v.payload)).length;
  console.log(
    `xss: ${vectors.length} vectors in ${orgs.length} orgs written to ${dir}: ` +
      `${count(fitsLine)} in titles and tags, ${count(fitsSummary)} in summaries, ${vectors.length} in bodies`,
  );
}
