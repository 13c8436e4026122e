// Progressive help for the verification form: the page works without it.
// Choosing a file clears and disables the paste box (one bundle is sent),
// a file over the bound is reported before it is sent, and the two subject
// choices exclude each other.
(function () {
  "use strict";
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
