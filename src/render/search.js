/* shiplog search (SPEC section 7, docs/output.md). Puts a search box in the page's header;
   on first use reads search.json beside this script, then finds entries as the reader
   types: every word of the query must start a word of the entry's title, summary, tags or
   text (or, in scripts written without spaces, stand anywhere in one). No request but the
   index's; the page without this script is the page as it was. */
(function (C) {
"use strict";
var d = document, me = d.currentScript, header = d.querySelector("header.site");
if (!me || !header || !window.fetch) return;
var base = new URL(".", me.src), index = null, loading = null, shown = "";

function el(tag, cls, text) {
  var e = d.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}
// Lower case, accents off, anything but letters and digits a blank: how both sides compare.
function fold(text) {
  return " " + String(text).normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ").trim() + " ";
}
// Whether a word is in a script written without spaces (Han, kana): matched anywhere.
var DENSE = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u;
// The results listed; the count says how many there are in all.
var SHOWN = 10;

// Styled by the theme's colours (its custom properties), without adding to every page.
var CSS = ".search{position:relative;flex-basis:100%}" +
  ".search input{box-sizing:border-box;width:100%;max-width:24rem;min-height:2.25rem;padding:.375rem .75rem;border:1px solid var(--line);border-radius:.5rem;background:var(--bg);color:var(--fg);font:inherit;font-size:.9375rem}" +
  ".search input:focus-visible{outline:2px solid var(--accent);outline-offset:1px}" +
  ".search .sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}" +
  // Over the page, not above it: drawing the results moves nothing else.
  ".found{position:absolute;z-index:10;inset-inline-start:0;top:calc(100% + .375rem);box-sizing:border-box;width:min(100%,32rem);max-height:min(28rem,70vh);overflow:auto;padding:.75rem 1rem;border:1px solid var(--line);border-radius:.625rem;background:var(--bg);contain:content}" +
  ".found .status{margin:0 0 .5rem;color:var(--muted);font-size:.875rem}" +
  ".found ol{margin:0;padding:0;list-style:none}" +
  ".found li{display:flex;flex-wrap:wrap;gap:.25rem .75rem;align-items:baseline;padding:.25rem 0}" +
  ".found a{font-weight:600}.found .when{color:var(--muted);font-size:.8125rem}";
try {
  var sheet = new CSSStyleSheet();
  sheet.replaceSync(CSS);
  d.adoptedStyleSheets = d.adoptedStyleSheets.concat(sheet);
} catch (e) {}

var form = el("form", "search"), label = el("label", "sr", C.label), input = el("input");
var out = el("div", "found"), status = el("p", "status"), list = el("ol");
form.setAttribute("role", "search");
input.type = "search";
input.id = "shiplog-search";
input.placeholder = C.label;
input.autocomplete = "off";
input.spellcheck = false;
label.htmlFor = input.id;
status.setAttribute("role", "status");
out.hidden = true;
out.appendChild(status);
out.appendChild(list);
form.appendChild(label);
form.appendChild(input);
header.appendChild(form);
form.appendChild(out);

// The index: entries, and each word folded with the entries that have it, as a bitmap
// (bit i % 8 of byte i >> 3 for entry i) or a list of entry numbers, both decoded when the
// index loads, so that no keystroke waits on it.
function read(data) {
  var words = data.words.map(fold).map(function (w) { return w.trim(); });
  var bytes = (data.count + 7) >> 3;
  return { count: data.count, bytes: bytes, entries: data.entries, words: words, sets: data.sets.map(function (code) { return decode(code, bytes); }) };
}
function decode(code, bytes) {
  var i, n = 0;
  if (code[0] === "b") {
    var raw = atob(code.slice(1)), bitmap = new Uint8Array(bytes);
    for (i = 0; i < raw.length; i++) bitmap[i] = raw.charCodeAt(i);
    return bitmap;
  }
  var gaps = code.slice(1).split("."), list = new Uint32Array(gaps.length);
  for (i = 0; i < gaps.length; i++) list[i] = n += parseInt(gaps[i], 36);
  return list;
}
// The entries with a word that starts with `w` (or, in a script without spaces, holds it).
function having(w) {
  var ix = index, out = new Uint8Array(ix.bytes), dense = DENSE.test(w), at, i, n;
  for (at = 0; at < ix.words.length; at++) {
    var word = ix.words[at];
    if (dense ? word.indexOf(w) < 0 : word.lastIndexOf(w, 0) !== 0) continue;
    var s = ix.sets[at];
    if (s instanceof Uint8Array) for (i = 0; i < s.length; i++) out[i] |= s[i];
    else for (i = 0; i < s.length; i++) { n = s[i]; out[n >> 3] |= 1 << (n & 7); }
  }
  return out;
}

function load() {
  if (!loading) {
    loading = fetch(new URL("search.json", base)).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.json();
    }).then(function (data) {
      index = read(data);
      find();
    }).catch(function () { loading = null; });
  }
  return loading;
}

function find() {
  var query = input.value, words = fold(query).trim().split(" ").filter(Boolean);
  if (query === shown) return;
  if (!words.length) {
    shown = query;
    out.hidden = true;
    list.textContent = "";
    return;
  }
  if (!index) return load();
  shown = query;
  var all = null;
  words.forEach(function (w) {
    var these = having(w);
    if (all) for (var i = 0; i < all.length; i++) all[i] &= these[i];
    else all = these;
  });
  var found = [], items = d.createDocumentFragment();
  for (var n = 0; n < index.count; n++) if ((all[n >> 3] >> (n & 7)) & 1) found.push(index.entries[n]);
  found.slice(0, SHOWN).forEach(function (e) {
    var li = el("li"), a = el("a", "", e[1]);
    a.href = new URL(e[0] + "/", base).href;
    li.appendChild(a);
    li.appendChild(el("span", "when", e[2]));
    items.appendChild(li);
  });
  list.replaceChildren(items);
  status.textContent = found.length ? C.results + " (" + found.length + ")" : C.none;
  out.hidden = false;
}

input.addEventListener("focus", load);
input.addEventListener("input", find);
// Escape empties the box and closes the results.
input.addEventListener("keydown", function (e) {
  if (e.key === "Escape" && input.value) { input.value = ""; find(); }
});
form.addEventListener("submit", function (e) {
  e.preventDefault();
  var first = list.querySelector("a");
  if (first) first.focus();
});
})(SHIPLOG_SEARCH);
