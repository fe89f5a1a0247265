// The draw progress bar: polls the job's JSON endpoint each second, shows "N of M groups",
// then the outcome (digest or error) and reloads the page, which renders the review.
(function () {
  "use strict";

  var box = document.getElementById("draw-progress");
  if (!box || box.dataset.finished === "true") {
    return;
  }

  var POLL_MS = 1000;
  var RELOAD_MS = 800;
  var part = function (role) {
    return box.querySelector('[data-role="' + role + '"]');
  };
  var bar = part("bar");
  var percent = part("percent");
  var status = part("status");
  var groups = part("groups");
  var error = part("error");
  var result = part("result");
  var digest = part("digest");

  function groupsText(done, total) {
    return box.dataset.groupsText.replace("%(done)s", done).replace("%(total)s", total);
  }

  function show(job) {
    bar.value = job.percent;
    bar.textContent = job.percent + "%";
    percent.textContent = job.percent + "%";
    status.textContent = job.status_display;
    status.className = "badge job-" + job.status;
    groups.textContent = job.total_groups
      ? groupsText(job.done_groups, job.total_groups)
      : job.finished ? "" : box.dataset.waitingText;
    if (job.error) {
      error.textContent = job.error;
      error.hidden = false;
    }
    if (job.status === "succeeded") {
      digest.textContent = job.digest;
      result.hidden = false;
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
        groups.textContent = box.dataset.lostText;
        window.setTimeout(poll, POLL_MS);
      });
  }

  window.setTimeout(poll, POLL_MS);
})();
