// Preference admin: show only the fields of the chosen key (every key's fields are on the page, so the
// form works without this script too; the chosen key's fields are the ones saved).
(function () {
  "use strict";
  function sync() {
    var select = document.getElementById("id_key");
    if (!select) return;
    document.querySelectorAll("fieldset.pref-value").forEach(function (fieldset) {
      fieldset.hidden = !fieldset.classList.contains("pref-value-" + select.value);
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("id_key");
    if (select) select.addEventListener("change", sync);
    sync();
  });
})();
