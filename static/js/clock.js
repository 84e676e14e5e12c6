// The time of play, ticking in the page while the table's game time runs with the wall clock (issue 41).
// The server sends each clock once (campaigns/_clock.html): data-game, the game seconds stored; data-since, the
// epoch ms at which they were the time of play; data-rate, game seconds per real second; data-now, the server's
// time when it drew them (this page's clock may be off). No request is made: when a step of game time falls due
// the server pushes the regions again (lights burnt down, gone out), and this carries on from them. The lights
// alight on the page (data-light-left, data-lit) tick down with the same clock.
(function () {
  "use strict";

  function two(n) {
    return (n < 10 ? "0" : "") + n;
  }

  // As characters.templatetags.lantern.game_time writes it: "day 2, 13:05", with ":30" when seconds count.
  function written(total) {
    var minutes = Math.floor(total / 60);
    var seconds = total % 60;
    var days = Math.floor(minutes / 1440);
    var rest = minutes % 1440;
    var text = "day " + (days + 1) + ", " + two(Math.floor(rest / 60)) + ":" + two(rest % 60);
    return seconds ? text + ":" + two(seconds) : text;
  }

  function ranSeconds(clock) {
    if (clock.lanternOffset === undefined) {
      clock.lanternOffset = Date.now() - Number(clock.dataset.now || Date.now());
    }
    var serverNow = Date.now() - clock.lanternOffset;
    var ran = Math.floor((serverNow - Number(clock.dataset.since)) / 1000);
    return Math.max(0, ran) * Number(clock.dataset.rate || 1);
  }

  function tick() {
    var ran = null;
    document.querySelectorAll("[data-clock][data-since]").forEach(function (clock) {
      var seconds = ranSeconds(clock);
      clock.textContent = written(Number(clock.dataset.game) + seconds);
      if (ran === null) {
        ran = seconds;
      }
    });
    if (ran === null) {
      return; // paused: what the server drew stands
    }
    document.querySelectorAll("[data-light-left][data-lit]").forEach(function (light) {
      var out = light.querySelector("[data-light-minutes]");
      if (out) {
        out.textContent = String(Math.max(0, Number(light.dataset.lightLeft) - Math.floor(ran / 60)));
      }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", tick);
  } else {
    tick(); // loaded by lantern.js once a running clock was shown
  }
  document.addEventListener("htmx:afterSettle", tick);
  setInterval(tick, 1000);
})();
