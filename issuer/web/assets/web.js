// Progressive help: every page works without it. Each command shown as
// text gets a button that copies it. On the verification form, choosing a
// file clears and disables the paste box (one bundle is sent), a file over
// the bound is reported before it is sent, and the two subject choices
// exclude each other.
(function () {
  "use strict";
  document.querySelectorAll("pre.command").forEach(function (pre, i) {
    var code = pre.querySelector("code") || pre;
    if (!code.id) {
      code.id = "command-" + i;
    }
    var bar = document.createElement("div");
    bar.className = "copy";
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = "Copy the command";
    button.setAttribute("aria-describedby", code.id);
    var said = document.createElement("span");
    said.className = "hint";
    said.setAttribute("role", "status");
    bar.appendChild(button);
    bar.appendChild(said);
    pre.insertAdjacentElement("afterend", bar);
    var select = function () {
      var range = document.createRange();
      range.selectNodeContents(code);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      said.textContent = "Selected: press Ctrl+C (or \u2318C) to copy.";
    };
    button.addEventListener("click", function () {
      var text = code.textContent;
      if (navigator.clipboard && navigator.clipboard.writeText) {
        // A browser that asks the reader first may not answer at once:
        // the command is selected meanwhile.
        var wait = window.setTimeout(select, 1000);
        navigator.clipboard.writeText(text).then(function () {
          window.clearTimeout(wait);
          said.textContent = "Copied.";
        }, function () {
          window.clearTimeout(wait);
          select();
        });
      } else {
        select();
      }
    });
  });
  var max = 512 * 1024;
  var file = document.getElementById("bundle-file");
  var text = document.getElementById("bundle-text");
  var subject = document.getElementById("subject");
  var any = document.getElementById("any-subject");
  if (file && text) {
    var note = document.createElement("p");
    note.className = "hint";
    note.setAttribute("role", "status");
    file.insertAdjacentElement("afterend", note);
    file.addEventListener("change", function () {
      var f = file.files && file.files[0];
      text.disabled = !!f;
      if (f) {
        text.value = "";
      }
      if (f && f.size > max) {
        note.textContent = "This file is " + f.size + " bytes; a bundle is at most " + max + " bytes, so its size check will fail.";
      } else if (f) {
        note.textContent = "The paste box is off while a file is chosen.";
      } else {
        note.textContent = "";
      }
    });
  }
  if (subject && any) {
    var sync = function () {
      subject.disabled = any.checked;
    };
    any.addEventListener("change", sync);
    sync();
  }
})();
