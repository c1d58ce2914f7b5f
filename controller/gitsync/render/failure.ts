/** A render that cannot produce manifests: the Revision fails with reason RenderFailure. */
export class RenderFailure extends Error {
  override name = "RenderFailure";
  readonly reason = "RenderFailure";
}
