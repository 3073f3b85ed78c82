/**
 * An error's message as it reads after it crossed RPC. A service binding
 * may hand the message on with the error's class name before it
 * (`CiRunInProgressError: ci follow-up refused: …`, as a Worker under
 * `wrangler dev` does), so a refusal the webhook app recognises by its
 * first words is read without that prefix. Pure.
 */
export function crossedMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : "";
  return message.replace(/^[A-Za-z]*Error: /, "");
}
