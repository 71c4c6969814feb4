{# Optional: the page works without it. `?theme=light|dark` fixes the colour scheme: every
   `prefers-color-scheme` media query of the page's styles is made true or false to match,
   `<html>` gets `data-theme`, and the changelog's own links keep the parameter. Inside an
   iframe the page posts its height, `{type: "shiplog:height", height}`, to the host. -#}
(function () {
var d = document, m = /[?&]theme=(light|dark)(&|$)/.exec(location.search), theme = m && m[1];
if (theme) {
  d.documentElement.setAttribute("data-theme", theme);
  [].forEach.call(d.styleSheets, function (sheet) {
    [].forEach.call(sheet.cssRules, function (rule) {
      if (rule.media) rule.media.mediaText = rule.media.mediaText.replace(/\(\s*prefers-color-scheme:\s*(light|dark)\s*\)/g, function (_, s) {
        return s === theme ? "(min-width:0)" : "(max-width:-1px)";
      });
    });
  });
}
function ready() {
  [].forEach.call(d.querySelectorAll("a[href]:not([target])"), function (a) {
    if (theme && a.origin === location.origin) a.search = "?theme=" + theme;
  });
  if (parent === window) return;
  var last = 0, post = function () {
    var height = Math.ceil(d.body.getBoundingClientRect().height);
    if (height !== last) parent.postMessage({ type: "shiplog:height", height: (last = height) }, "*");
  };
  post();
  addEventListener("load", post);
  if (window.ResizeObserver) new ResizeObserver(post).observe(d.body);
}
d.readyState === "loading" ? d.addEventListener("DOMContentLoaded", ready) : ready();
})();
