// A job's progress bar (the draw, a big import): polls the job's JSON endpoint each second,
// moves the bar, the percentage and the status badge, lets the page's own script write what
// is special to its job, and once the job has finished reloads the page, which renders the
// outcome. Markup: a box with data-url, data-finished, data-lost-text and children with
// data-role="bar", "percent", "status" and the role named by `lostRole`.
// A count as the page's language writes it ("3,099" / "3.099"), as the server wrote it
// (Django's intcomma).
window.formatCount = function (n) {
  "use strict";
  return Number(n).toLocaleString(document.documentElement.lang || undefined);
};

window.followJob = function (boxId, lostRole, describe) {
  "use strict";

  var box = document.getElementById(boxId);
  if (!box || box.dataset.finished === "true") {
    return;
  }

  var POLL_MS = 1000;
  var RELOAD_MS = 600;
  var part = function (role) {
    return box.querySelector('[data-role="' + role + '"]');
  };
  var bar = part("bar");
  var percent = part("percent");
  var status = part("status");

  function show(job) {
    bar.value = job.percent;
    bar.textContent = job.percent + "%";
    percent.textContent = job.percent + "%";
    status.textContent = job.status_display;
    status.className = "badge job-" + job.status;
    describe(job, box, part);
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
        part(lostRole).textContent = box.dataset.lostText;
        window.setTimeout(poll, POLL_MS);
      });
  }

  window.setTimeout(poll, POLL_MS);
};
