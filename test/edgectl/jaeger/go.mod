// Wrapper module that builds Jaeger v1's all-in-one (collector with OTLP receivers, query service and
// in-memory storage in one process) from its pinned upstream module, for edgectl's `trace` tests and
// as the OTLP collector other tests send spans to (test/harness/jaeger.ts).
// Used by scripts/testenv/go_build.ts. Jaeger's own go.mod replaces sarama with its new name; a
// dependency's replace directives do not apply to the main module, so it is repeated here.
// Change v1.76.0 here and JAEGER.version in scripts/testenv/servers.ts together, then delete go.sum
// and run the build once to regenerate it.
module toolkit.local/edgectl-test-env/jaeger

go 1.26.0

tool github.com/jaegertracing/jaeger/cmd/all-in-one

require github.com/jaegertracing/jaeger v1.76.0

replace github.com/Shopify/sarama => github.com/Shopify/sarama v1.33.0
