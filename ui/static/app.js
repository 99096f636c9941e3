// perm-peer ui: the little the page does in the browser. Everything works
// without it; it only saves a click.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // The filters apply as soon as a select changes.
  for (const sel of document.querySelectorAll("form.filters select")) {
    sel.addEventListener("change", () => sel.form.requestSubmit());
  }
  // A policy file chosen for upload is shown in the text area before replay.
  const file = document.querySelector('.whatif input[type="file"]');
  const area = document.querySelector(".whatif textarea");
  if (file && area) {
    file.addEventListener("change", async () => {
      if (file.files.length) area.value = await file.files[0].text();
    });
  }
});
