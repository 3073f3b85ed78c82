import { describe, expect, it } from "vitest";
import { isStopInstruction } from "../../src/shared/dispatch";

describe("the stop grammar", () => {
  const stops = [
    "stop",
    "Stop",
    "STOP",
    "stop.",
    "stop!",
    "stop!!",
    "  stop  ",
    "please stop",
    "Please stop.",
    "please   STOP!",
    "cancel",
    "Cancel.",
    "please cancel",
    "abort",
    "ABORT!",
    "stop\nthe tests are flaky, I will look myself",
    "\n\nstop.\n\nthanks",
    "stop\r\nsecond line"
  ];
  const instructions = [
    "stop the server from crashing on empty input",
    "stopped",
    "stop?",
    "don't stop",
    "stop, please",
    "please",
    "cancel the subscription when the card expires",
    "abort controller leaks listeners",
    "reproduce this issue\nstop",
    "",
    "   ",
    "stop it",
    "st op",
    "stop.stop",
    "unstop"
  ];

  it.each(stops)("%j is a stop", (instruction) => {
    expect(isStopInstruction(instruction)).toBe(true);
  });

  it.each(instructions)("%j is an instruction", (instruction) => {
    expect(isStopInstruction(instruction)).toBe(false);
  });
});
