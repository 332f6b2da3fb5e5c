#!/usr/bin/env node
// A minimal Rummy Arena bot in JavaScript (plain Node.js, no packages): protocol version 3.
//
// It reads one JSON message per line on stdin and answers with one JSON line on stdout
// (docs/protocol.md). It always draws from the stock, then discards the drawn card or, half
// of the time, another card of its hand. Config:  command: [node, examples/js_bot.js]
"use strict";

const readline = require("readline");

// A small seeded PRNG (mulberry32), so the same game seed gives the same moves.
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = prng(1);

function draw(view) {
  return "stock";
}

function play(view) {
  // A card taken from the discard pile this turn ("kept") may not be discarded (COM-11).
  const choices = view.hand.filter((card) => card !== view.kept);
  if (view.drawn !== null && view.drawn !== view.kept && random() < 0.5) {
    return "discard " + view.drawn;
  }
  return "discard " + choices[Math.floor(random() * choices.length)];
}

function answer(message) {
  switch (message.type) {
    case "start_game":
      random = prng(Number(BigInt.asUintN(32, BigInt(message.seed))));
      return { type: "ready" };
    case "draw":
    case "play":
      try {
        const decide = message.type === "draw" ? draw : play;
        return { id: message.id, action: decide(message.view) };
      } catch (err) {
        return { id: message.id, error: String(err) };
      }
    case "end_round": // every final hand and penalty: nothing to learn for this bot
    case "end_game":
      return null;
    case "quit":
      process.exit(0);
    default:
      return { error: "unexpected message type " + message.type };
  }
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const reply = answer(JSON.parse(line));
  if (reply !== null) {
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
});
lines.on("close", () => process.exit(0));
