/* The portal's copy buttons: a key, a signing secret, an invitation link, shown once in a band of their own.
 *
 * Served at /static/copy.js (portal.web); a page that shows a copy button loads it and allows `script-src
 * 'self'` in its answer's policy (the button's template asks `request.copy_script()`): no inline script, no
 * other origin. Each button names its band (`data-copy="id"`) and is hidden until this script shows it, so
 * without JavaScript the page offers what it always did: the band selects whole with one click.
 */
(function () {
  "use strict";

  function selectWhole(band) {
    var range = document.createRange();
    range.selectNodeContents(band);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function copy(button) {
    var band = document.getElementById(button.getAttribute("data-copy"));
    var status = document.getElementById(button.getAttribute("data-copy") + "-copied");
    var say = function (words) { if (status) { status.textContent = words; } };
    var selected = function () {
      selectWhole(band);
      say("Selected: press Ctrl+C (\u2318C on a Mac) to copy");
    };
    if (!band) { return; }
    if (navigator.clipboard && window.isSecureContext) {
      var text = band.textContent.trim();
      if (button.hasAttribute("data-copy-compact")) { text = text.replace(/\s+/g, ""); }
      navigator.clipboard.writeText(text).then(function () { say("Copied"); }, selected);
    } else {
      selected();
    }
  }

  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () { copy(button); });
  });
})();
