// The format lab's charts, drawn by Chart.js (static/vendor/chart.js, MIT) from the data the
// page embeds (#lab-chart-data, made by office.views._lab_chart): the share of games over each
// rating difference, the mean points by rating rank, and the top rated players' chances.
(function () {
  "use strict";

  var source = document.getElementById("lab-chart-data");
  if (!source || !window.Chart) {
    return;
  }
  var data = JSON.parse(source.textContent);
  var text = data.text;
  var COLOURS = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700"];
  // On a phone a candidate's whole label would fill the chart with its legend: there the
  // legend names it by its number and the label's start (the list above the table has it all).
  var NARROW = window.matchMedia("(max-width: 40rem)").matches;

  function legendLabel(i, label) {
    var name = i + 1 + ". " + label;
    return NARROW && name.length > 26 ? name.slice(0, 25) + "…" : name;
  }

  function axes(x, y) {
    return {
      x: { title: { display: true, text: x } },
      y: { title: { display: true, text: y }, beginAtZero: true },
    };
  }

  function draw(id, type, labels, datasets, x, y) {
    var canvas = document.getElementById(id);
    if (!canvas) {
      return;
    }
    new window.Chart(canvas, {
      type: type,
      data: { labels: labels, datasets: datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: "index", intersect: false },
        scales: axes(x, y),
      },
    });
  }

  function series(key, extra) {
    return data.candidates.map(function (c, i) {
      return Object.assign(
        {
          label: legendLabel(i, c.label),
          data: c[key],
          borderColor: COLOURS[i % COLOURS.length],
          backgroundColor: COLOURS[i % COLOURS.length],
        },
        extra || {}
      );
    });
  }

  draw("lab-chart-shares", "line", data.thresholds, series("shares"), text.shares_x, text.shares_y);

  var players = data.candidates.length ? data.candidates[0].mean_score.length : 0;
  var ranks = [];
  for (var r = 1; r <= players; r += 1) {
    ranks.push(r);
  }
  draw(
    "lab-chart-score",
    "line",
    ranks,
    series("mean_score", { pointRadius: 0, borderWidth: 1.5 }),
    text.score_x,
    text.score_y
  );

  var qualifies = data.candidates.some(function (c) {
    return c.qualifies.some(function (v) {
      return v !== null;
    });
  });
  var tops = data.candidates.length ? data.candidates[0].finish_top.length : 0;
  draw(
    "lab-chart-top",
    "bar",
    ranks.slice(0, tops),
    series(qualifies ? "qualifies" : "finish_top"),
    text.top_x,
    qualifies ? text.top_y : text.top_y_finish
  );
})();
