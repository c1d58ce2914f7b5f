/** Browser apps embedded in the binaries: their files and their serving under a strict CSP. */
export { type ServedAsset, spaRoutes, type SpaRoutesOptions } from "./spa_routes.ts";
export { loadWebFiles, type WebAsset, webAsset } from "./web_asset.ts";
