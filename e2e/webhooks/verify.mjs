// Independent check of Earshot's webhook signatures: every message Earshot
// signs must verify with the reference Standard Webhooks library, not just
// with our own Go verifier.
//
// Input on stdin, one JSON object per line:
//   {"secret": "whsec_…", "id": "…", "timestamp": "1700000000",
//    "body": "…", "signature": "v1,… v1,…", "expect": "accept"}
// "secrets" (an array) may replace "secret": each one must verify the
// header on its own (secret rotation sends old and new signatures).
// "expect": "reject" marks a negative control that must fail verification,
// so a verifier that accepts everything cannot pass.
//
// Exit status: 0 when every line behaves as expected, 1 otherwise.
import { createInterface } from "node:readline";
import { Webhook } from "standardwebhooks";

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
let checked = 0;
let failed = 0;

for await (const line of lines) {
  if (line.trim() === "") continue;
  const msg = JSON.parse(line);
  const secrets = msg.secrets ?? [msg.secret];
  const expectAccept = (msg.expect ?? "accept") === "accept";
  const headers = {
    "webhook-id": msg.id,
    "webhook-timestamp": String(msg.timestamp),
    "webhook-signature": msg.signature,
  };
  for (const secret of secrets) {
    checked++;
    let accepted = true;
    let reason = "";
    try {
      new Webhook(secret).verify(msg.body, headers);
    } catch (err) {
      accepted = false;
      reason = err.message;
    }
    if (accepted !== expectAccept) {
      failed++;
      console.error(
        `FAIL id=${msg.id} expected ${expectAccept ? "accept" : "reject"}, got ${accepted ? "accept" : "reject"} ${reason}`,
      );
    }
  }
}

console.error(`standardwebhooks: ${checked} checks, ${failed} failed`);
process.exit(failed === 0 && checked > 0 ? 0 : 1);
