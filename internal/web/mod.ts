/** Browser apps embedded in the binaries: their files, their page and their serving under a strict CSP. */
export {
  appAssets,
  type AppBundle,
  appPage,
  type AppPageOptions,
  loadAppBundle,
  sourceBundleDir,
} from "./app_bundle.ts";
export { type ServedAsset, spaRoutes, type SpaRoutesOptions } from "./spa_routes.ts";
export { loadWebFiles, type WebAsset, webAsset } from "./web_asset.ts";
