import { describe, expect, it } from "vitest";
import { isContinueInstruction, isStopInstruction } from "../../src/shared/dispatch";
import { continueRefusalText, isContinueRefusal, NothingToContinueError, CONTINUE_REFUSAL_REASONS } from "../../src/shared/continue-refusal";

describe("the continue grammar", () => {
  const continues = [
    "continue",
    "Continue",
    "Continue.",
    "CONTINUE!",
    "continue!!",
    "  continue  ",
    "please continue",
    "Please continue.",
    "please   CONTINUE!",
    "continue\nthe network was down, try again",
    "\n\ncontinue.\n\nthanks",
    "continue\r\nsecond line"
  ];
  const instructions = [
    "continue with the fix",
    "continue, please",
    "continue?",
    "continued",
    "don't continue",
    "please",
    "please continue with the fix",
    "reproduce this issue\ncontinue",
    "",
    "   ",
    "con tinue",
    "continue.continue",
    "discontinue",
    "stop"
  ];

  it.each(continues)("%j is a continue", (instruction) => {
    expect(isContinueInstruction(instruction)).toBe(true);
    expect(isStopInstruction(instruction)).toBe(false);
  });

  it.each(instructions)("%j is not a continue", (instruction) => {
    expect(isContinueInstruction(instruction)).toBe(false);
  });
});

describe("a continue's refusal", () => {
  it.each(CONTINUE_REFUSAL_REASONS)("%s is recognised by its message, as it arrives over RPC, with words for the issue", (reason) => {
    const error = new NothingToContinueError(reason);
    expect(error).toMatchObject({ name: "NothingToContinueError", code: "nothing_to_continue", reason });
    // RPC keeps the message only.
    const crossed = new Error(error.message);
    expect(isContinueRefusal(crossed)).toBe(true);
    const text = continueRefusalText(crossed);
    expect(text).toMatch(/^[a-z`].+\.$/);
    expect(error.message).toBe(`nothing to continue: ${text}`);
  });

  it("says which of the four it is", () => {
    expect(continueRefusalText(new NothingToContinueError("no_run"))).toMatch(/no run on this issue yet/);
    expect(continueRefusalText(new NothingToContinueError("running"))).toMatch(/still going/);
    expect(continueRefusalText(new NothingToContinueError("done"))).toMatch(/finished/);
    expect(continueRefusalText(new NothingToContinueError("cancelled"))).toMatch(/stopped, which is not a failure/);
  });

  it("is not any other error", () => {
    expect(isContinueRefusal(new Error("monthly cost budget reached: $1"))).toBe(false);
    expect(isContinueRefusal(undefined)).toBe(false);
    expect(continueRefusalText(new Error("boom"))).toBeNull();
  });
});
