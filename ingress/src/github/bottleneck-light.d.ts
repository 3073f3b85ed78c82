/**
 * Types for `bottleneck/light.js`, the build of Bottleneck without Redis
 * clustering that @octokit/plugin-throttling paces with (the package types
 * only its main entry). octokit.ts builds its write groups from the same
 * file, so the bundle holds one Bottleneck.
 */
declare module "bottleneck/light.js" {
  import Bottleneck from "bottleneck";
  export default Bottleneck;
}
