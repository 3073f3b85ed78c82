/**
 * Every check `npm run doctor` makes of a checkout, in the order it prints
 * them: the two Workers against each other, then the agent Worker's deploy
 * settings, then what local runs would use. docs/doctor.md describes each.
 * Pure: the checkout arrives read (checkout.ts).
 */
import { ciFixReposCheck } from "./ci-fix";
import { accessCheck, containersCheck, egressCheck, localDevCheck, localIngressSecretsCheck, publicUrlCheck, reprosCheck, secretsCheck, skillsCheck } from "./deploy";
import { flagsCheck } from "./flags";
import { deployedModelCheck, localModelCheck } from "./model";
import type { Checkout, DoctorCheck } from "./types";
import { allowlistCheck, bindingsCheck, botLoginCheck, compatibilityDateCheck, githubCheck, webhookSettingsCheck } from "./wiring";

export function checkoutChecks(checkout: Checkout): DoctorCheck[] {
  return [
    bindingsCheck(checkout),
    githubCheck(checkout),
    compatibilityDateCheck(checkout),
    flagsCheck(checkout),
    allowlistCheck(checkout),
    ciFixReposCheck(checkout),
    webhookSettingsCheck(checkout),
    botLoginCheck(checkout),
    deployedModelCheck(checkout),
    containersCheck(checkout),
    skillsCheck(checkout),
    reprosCheck(checkout),
    accessCheck(checkout),
    egressCheck(checkout),
    localDevCheck(checkout),
    publicUrlCheck(checkout),
    secretsCheck(checkout),
    localModelCheck(checkout),
    localIngressSecretsCheck(checkout)
  ];
}
