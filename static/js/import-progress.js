// The entrant import's progress bar: polls the job's JSON endpoint each second, shows
// "N of M rows checked" (then "writing the entrants…"), and once the job has finished
// reloads the page, which renders the outcome: the preview, the import, or the bad rows.
(function () {
  "use strict";

  var box = document.getElementById("import-progress");
  if (!box || box.dataset.finished === "true") {
    return;
  }

  var POLL_MS = 1000;
  var RELOAD_MS = 500;
  var part = function (role) {
    return box.querySelector('[data-role="' + role + '"]');
  };
  var bar = part("bar");
  var percent = part("percent");
  var status = part("status");
  var rows = part("rows");

  function rowsText(done, total) {
    return box.dataset.rowsText.replace("%(done)s", done).replace("%(total)s", total);
  }

  function show(job) {
    bar.value = job.percent;
    bar.textContent = job.percent + "%";
    percent.textContent = job.percent + "%";
    status.textContent = job.status_display;
    status.className = "badge job-" + job.status;
    if (job.status === "pending") {
      rows.textContent = box.dataset.waitingText;
    } else if (job.phase === "saving" && !job.finished) {
      rows.textContent = box.dataset.savingText;
    } else {
      rows.textContent = rowsText(job.done_rows, job.total_rows);
    }
  }

  function poll() {
    fetch(box.dataset.url, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
      cache: "no-store",
    })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.json();
      })
      .then(function (job) {
        show(job);
        if (job.finished) {
          window.setTimeout(function () {
            window.location.reload();
          }, RELOAD_MS);
        } else {
          window.setTimeout(poll, POLL_MS);
        }
      })
      .catch(function () {
        rows.textContent = box.dataset.lostText;
        window.setTimeout(poll, POLL_MS);
      });
  }

  window.setTimeout(poll, POLL_MS);
})();
