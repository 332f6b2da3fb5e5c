// The report's replay viewer: one game at a time, rebuilt step by step from the packed
// steps of arena/report/replays.py (whose docstring names the keys), shown to the
// organiser (every hand) or to one seat (its own hand, the others' hand sizes).
(function () {
  "use strict";

  var RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  var LETTERS = ["S", "H", "D", "C"];
  var SYMBOLS = ["\u2660", "\u2665", "\u2666", "\u2663"];
  var JOKER = 52;
  var ORGANISER = "";

  var data = {games: []};
  var ui = {};
  ["game", "seat", "prev", "next", "position", "error", "board", "step", "ending", "table",
   "seats", "melds"].forEach(function (id) { ui[id] = document.getElementById(id); });

  var game = null;   // the game shown
  var states = [];   // one {entry, table} a step: the table rebuilt up to that step
  var at = 0;        // the step shown

  function element(tag, className, text) {
    var el = document.createElement(tag);
    if (className) { el.className = className; }
    if (text !== undefined) { el.textContent = text; }
    return el;
  }

  function cardText(code) {
    return code === JOKER ? "JK" : RANKS[code % 13] + LETTERS[Math.floor(code / 13)];
  }

  function suitOf(code) { return code === JOKER ? 4 : Math.floor(code / 13); }

  function cardElement(code, extra) {
    var el = element("span", "card" + (extra ? " " + extra : ""));
    el.dataset.card = cardText(code);
    el.title = cardText(code);
    if (code === JOKER) {
      el.classList.add("joker");
      el.appendChild(element("span", "rank", "JK"));
      el.appendChild(element("span", "suit", "\u2605"));
      return el;
    }
    var suit = suitOf(code);
    if (suit === 1 || suit === 2) { el.classList.add("red"); }
    el.appendChild(element("span", "rank", RANKS[code % 13]));
    el.appendChild(element("span", "suit", SYMBOLS[suit]));
    return el;
  }

  function backElement() {
    var el = element("span", "card back");
    el.setAttribute("aria-label", "a hidden card");
    return el;
  }

  function withoutCards(hand, removed) {
    var left = hand.slice();
    removed.forEach(function (code) {
      var i = left.indexOf(code);
      if (i >= 0) { left.splice(i, 1); }
    });
    return left;
  }

  function rebuilt(g) {
    // Every step's table, from the deals' whole tables and the actions' changes.
    var out = [];
    var table = null;
    g.steps.forEach(function (entry) {
      if (entry.H && entry.s === undefined) {
        table = {round: entry.n, dealer: entry.l, headline: entry.g, hands: entry.H,
                 top: entry.p, stock: entry.k, totals: entry.t, melds: entry.m};
      } else if (!entry.r) {
        table = Object.assign({}, table);
        var changes = (entry.h || []).slice();
        var gained = entry["+"] || (entry.d === undefined ? [] : [entry.d]);
        if (gained.length || entry["-"]) { changes.push([entry.s, gained, entry["-"] || []]); }
        if (changes.length) {
          table.hands = table.hands.slice();
          changes.forEach(function (change) {
            var seat = change[0];
            table.hands[seat] = withoutCards(table.hands[seat], change[2])
              .concat(change[1]).sort(function (a, b) { return a - b; });
          });
        }
        if ("p" in entry) { table.top = entry.p; }
        if ("k" in entry) { table.stock = entry.k; }
        if ("t" in entry) { table.totals = entry.t; }
        if ("m" in entry) { table.melds = entry.m; }
      }
      out.push({entry: entry, table: table});
    });
    return out;
  }

  function viewer() {
    return ui.seat.value === ORGANISER ? null : Number(ui.seat.value);
  }

  function sees(view, seat) { return view === null || view === seat; }

  function drawText(entry, shown) {
    return shown && entry.d !== undefined ? "draws " + cardText(entry.d) + " from the " + entry.a
      : "draws from the " + entry.a;
  }

  function ownText(entry) {
    return entry.w ? drawText(entry, true) : entry.a;
  }

  function publicText(entry) {
    if (entry.u !== undefined) { return entry.u; }
    return entry.w ? drawText(entry, entry.w === 2) : entry.a;
  }

  function stepText(entry, table, view) {
    if (entry.s === undefined) {
      return "Round " + table.round + " dealt, dealer seat " + table.dealer + table.headline;
    }
    var who = "Seat " + entry.s + " (" + game.bots[entry.s] + "): ";
    return who + (sees(view, entry.s) ? ownText(entry) : publicText(entry));
  }

  function gameEnd() {
    // The game's result under its last round: a forfeited seat ranks last whatever its total.
    var gave = (game.forfeit || []).map(function (seat) {
      return "seat " + seat + " (" + game.bots[seat] + ")";
    });
    return " Game over (" + game.end + (gave.length ? ": " + gave.join(", ") + " forfeited" : "") +
      "): ranks " + game.ranks.join(", ") + ".";
  }

  function showStep() {
    var state = states[at];
    var entry = state.entry;
    var table = state.table;
    var view = viewer();
    ui.position.textContent = "step " + (at + 1) + " of " + states.length;
    ui.prev.disabled = at === 0;
    ui.next.disabled = at === states.length - 1;

    ui.step.replaceChildren(element("span", "", stepText(entry, table, view)));
    (entry.f || []).forEach(function (kind) {
      ui.step.appendChild(element("span", "fault", "Fault: " + kind +
        " (the action shown was played for the seat)"));
    });
    (entry.o || []).forEach(function (fault) {
      ui.step.appendChild(element("span", "fault", "Fault of seat " + fault[0] + ": " +
        fault[1] + " (no action of it here: it did not start, or was stopped)"));
    });

    var ended = entry.r || null;
    ui.ending.hidden = !ended;
    if (ended) {
      ui.ending.textContent = "Round " + ended.n + " ends (" + ended.why + "): penalties " +
        ended.pen.join(", ") + "; totals " + ended.t.join(", ") +
        ". Every hand is shown at a round's end." + (at === states.length - 1 ? gameEnd() : "");
    }
    showTable(table, ended);
    showSeats(entry, table, ended, view);
    showMelds(table);
  }

  function labelled(label, content) {
    var el = element("span", "fact");
    el.appendChild(element("span", "label", label));
    if (typeof content === "string") { el.appendChild(document.createTextNode(content)); }
    else { el.appendChild(content); }
    return el;
  }

  function showTable(table, ended) {
    var top = table.top === null || table.top === undefined ? element("span", "", "empty")
      : cardElement(table.top, "small");
    ui.table.replaceChildren(
      labelled("Round", String(table.round) + table.headline),
      labelled("Dealer", "seat " + table.dealer),
      labelled("Discard", top),
      labelled("Stock", table.stock + " cards"),
      labelled("Totals", (ended ? ended.t : table.totals).join(", ")));
  }

  function showSeats(entry, table, ended, view) {
    var panels = game.bots.map(function (bot, seat) {
      var panel = element("div", "seat" + (entry.s === seat ? " acting" : ""));
      panel.dataset.seat = String(seat);
      var head = element("div", "seat-head");
      head.appendChild(element("span", "name", "Seat " + seat + " \u00b7 " + bot +
        (table.dealer === seat ? " (dealer)" : "") + (view === seat ? " (you)" : "")));
      var total = (ended ? ended.t : table.totals)[seat];
      head.appendChild(element("span", "total", "total " + total));
      panel.appendChild(head);
      var cards = ended ? ended.H[seat] : table.hands[seat];
      var hand = element("div", "hand");
      hand.dataset.seat = String(seat);
      if (ended || sees(view, seat)) {
        var suit = null;
        var marked = ended || entry.s !== seat || entry.d === undefined;
        cards.forEach(function (code) {
          var starts = suit !== null && suitOf(code) !== suit;
          var drawn = !marked && entry.d === code;
          marked = marked || drawn;
          hand.appendChild(cardElement(code, [starts ? "suit-start" : "",
                                              drawn ? "drawn" : ""].join(" ").trim()));
          suit = suitOf(code);
        });
      } else {
        hand.dataset.hidden = "true";
        cards.forEach(function () { hand.appendChild(backElement()); });
      }
      hand.dataset.size = String(cards.length);
      hand.appendChild(element("span", "size", cards.length +
        (cards.length === 1 ? " card" : " cards")));
      panel.appendChild(hand);
      return panel;
    });
    ui.seats.replaceChildren.apply(ui.seats, panels);
  }

  function showMelds(table) {
    var melds = table.melds || [];
    if (!melds.length) { ui.melds.replaceChildren(); return; }
    var rows = [element("h3", "", "On the table")];
    melds.forEach(function (meld, i) {
      var row = element("div", "meld");
      row.appendChild(element("span", "owner", i + ": seat " + meld[0]));
      meld[1].forEach(function (code, k) {
        var card = cardElement(code, "small");
        var stands = meld[2] ? meld[2][k] : null;
        if (stands !== null && stands !== undefined) {
          card.title = cardText(code) + " as " + cardText(stands);
          card.appendChild(element("span", "for", "=" + cardText(stands)));
        }
        row.appendChild(card);
      });
      rows.push(row);
    });
    ui.melds.replaceChildren.apply(ui.melds, rows);
  }

  function chooseGame(index) {
    game = data.games[index];
    var kept = ui.seat.value;
    var options = [new Option("Organiser: every hand", ORGANISER)];
    game.bots.forEach(function (bot, seat) {
      options.push(new Option("Seat " + seat + " (" + bot + "): its own view", String(seat)));
    });
    ui.seat.replaceChildren.apply(ui.seat, options);
    ui.seat.value = kept !== ORGANISER && Number(kept) < game.bots.length ? kept : ORGANISER;
    ui.error.hidden = !game.error;
    ui.board.hidden = !!game.error;
    if (game.error) {
      ui.error.textContent = "Game " + game.id + " does not replay: " + game.error;
      states = [];
      ui.position.textContent = "";
      ui.prev.disabled = ui.next.disabled = true;
      return;
    }
    states = rebuilt(game);
    at = 0;
    showStep();
  }

  function step(by) {
    if (!states.length) { return; }
    var next = Math.min(Math.max(at + by, 0), states.length - 1);
    if (next !== at) { at = next; showStep(); }
  }

  ui.game.addEventListener("change", function () { chooseGame(Number(ui.game.value)); });
  ui.seat.addEventListener("change", function () { if (states.length) { showStep(); } });
  ui.prev.addEventListener("click", function () { step(-1); });
  ui.next.addEventListener("click", function () { step(1); });
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
    var by = event.key === "ArrowLeft" ? -1 : event.key === "ArrowRight" ? 1 : 0;
    if (!by || !states.length) { return; }
    event.preventDefault();
    step(by);
  });

  function unpacked(packed) {
    // The replays travel as gzip in base64: a tenth of their JSON. The browser unpacks
    // them itself (DecompressionStream), fetching nothing.
    var bytes = Uint8Array.from(atob(packed.trim()), function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  function start() {
    ui.position.textContent = "unpacking the replays\u2026";
    ui.prev.disabled = ui.next.disabled = true;
    var packed = document.getElementById("replay-data").textContent;
    if (typeof DecompressionStream === "undefined") {
      ui.error.hidden = false;
      ui.error.textContent = "This browser cannot unpack the replays (it has no " +
        "DecompressionStream); a current Chrome, Firefox, Safari or Edge can.";
      ui.position.textContent = "";
      return;
    }
    unpacked(packed).then(function (value) {
      data = value;
      if (data.games.length) { chooseGame(Number(ui.game.value) || 0); }
      document.body.dataset.replays = "ready";
    }).catch(function (error) {
      ui.error.hidden = false;
      ui.error.textContent = "The replays could not be unpacked: " + error;
    });
  }

  start();
}());
