// Command helm is Helm's template engine (helm.sh/helm/v3 pkg/chart/loader, pkg/chartutil, pkg/engine,
// the version of the test helm binary) compiled to WebAssembly (GOOS=js) for gitsync's in-process
// renderer (controller/gitsync/render/helm.ts). It registers one global function and waits:
//
//	gitsyncHelm(request, lookup) -> Promise<{ yaml: string } | { error: string }>
//
// request is { files: [path, Uint8Array][] (the chart folder, charts/ subcharts included),
// values: string[] (YAML documents, merged in order, later wins), releaseName, namespace, revision,
// isUpgrade, kubeVersion, apiVersions: string[] }. The answer is what
// `helm template --include-crds --skip-tests` prints for the same input: CRDs from crds/, manifests
// in Helm's install order, then hooks. NOTES.txt is dropped as Helm does.
//
// lookup(path) -> Promise<{ status: number, body: string }> answers the GET requests of Helm's
// `lookup` function (discovery, then get or list), which the controller serves with the
// Application's client. Any other method is refused here. With lookup null, `lookup` returns
// empty results, as in `helm template`.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"syscall/js"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/ignore"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

type request struct {
	files       []*loader.BufferedFile
	values      []string
	releaseName string
	namespace   string
	revision    int
	isUpgrade   bool
	kubeVersion string
	apiVersions []string
}

func readRequest(v js.Value) (*request, error) {
	r := &request{
		releaseName: v.Get("releaseName").String(),
		namespace:   v.Get("namespace").String(),
		revision:    v.Get("revision").Int(),
		isUpgrade:   v.Get("isUpgrade").Truthy(),
		kubeVersion: v.Get("kubeVersion").String(),
	}
	files := v.Get("files")
	for i, n := 0, files.Length(); i < n; i++ {
		entry := files.Index(i)
		data := entry.Index(1)
		buf := make([]byte, data.Length())
		js.CopyBytesToGo(buf, data)
		r.files = append(r.files, &loader.BufferedFile{Name: entry.Index(0).String(), Data: buf})
	}
	values := v.Get("values")
	for i, n := 0, values.Length(); i < n; i++ {
		r.values = append(r.values, values.Index(i).String())
	}
	apis := v.Get("apiVersions")
	if apis.Truthy() {
		for i, n := 0, apis.Length(); i < n; i++ {
			r.apiVersions = append(r.apiVersions, apis.Index(i).String())
		}
	}
	return r, nil
}

// fileInfo is what .helmignore rules look at: the name and whether it is a folder.
type fileInfo struct {
	name string
	dir  bool
}

func (f fileInfo) Name() string       { return f.name }
func (f fileInfo) Size() int64        { return 0 }
func (f fileInfo) Mode() fs.FileMode  { return map[bool]fs.FileMode{true: fs.ModeDir, false: 0}[f.dir] }
func (f fileInfo) ModTime() time.Time { return time.Time{} }
func (f fileInfo) IsDir() bool        { return f.dir }
func (f fileInfo) Sys() any           { return nil }

// chartFiles applies .helmignore (and Helm's default rules) as `helm template <dir>` does, in the
// order of Helm's directory walk.
func chartFiles(files []*loader.BufferedFile) ([]*loader.BufferedFile, error) {
	rules := ignore.Empty()
	for _, f := range files {
		if f.Name == ignore.HelmIgnore {
			r, err := ignore.Parse(bytes.NewReader(f.Data))
			if err != nil {
				return nil, err
			}
			rules = r
		}
	}
	rules.AddDefaults()
	kept := []*loader.BufferedFile{}
	for _, f := range files {
		parts := strings.Split(f.Name, "/")
		skip := false
		for i := 1; i < len(parts) && !skip; i++ {
			skip = rules.Ignore(strings.Join(parts[:i], "/"), fileInfo{parts[i-1], true})
		}
		if skip || rules.Ignore(f.Name, fileInfo{parts[len(parts)-1], false}) {
			continue
		}
		f.Data = bytes.TrimPrefix(f.Data, []byte{0xEF, 0xBB, 0xBF})
		kept = append(kept, f)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		return walkLess(kept[i].Name, kept[j].Name)
	})
	return kept, nil
}

// walkLess orders paths as a depth-first walk of sorted folder entries does.
func walkLess(a, b string) bool {
	pa, pb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

// mergeMaps merges b over a: maps merge recursively, anything else in b replaces a's value (as
// `helm template -f a -f b` merges values files).
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if vm, ok := v.(map[string]any); ok {
			if om, ok := out[k].(map[string]any); ok {
				out[k] = mergeMaps(om, vm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

func render(r *request, lookup js.Value) (string, error) {
	files, err := chartFiles(r.files)
	if err != nil {
		return "", err
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return "", err
	}
	if ch.Metadata.Type != "" && ch.Metadata.Type != "application" {
		return "", fmt.Errorf("%s charts are not installable", ch.Metadata.Type)
	}
	if reqs := ch.Metadata.Dependencies; reqs != nil {
		if err := checkDependencies(ch, reqs); err != nil {
			return "", fmt.Errorf("chart dependencies are not vendored: %w", err)
		}
	}
	vals := map[string]any{}
	for i, doc := range r.values {
		current := map[string]any{}
		if err := yaml.Unmarshal([]byte(doc), &current); err != nil {
			return "", fmt.Errorf("values %d: %w", i+1, err)
		}
		vals = mergeMaps(vals, current)
	}
	if err := chartutil.ProcessDependenciesWithMerge(ch, vals); err != nil {
		return "", err
	}
	caps := chartutil.DefaultCapabilities.Copy()
	if r.kubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(r.kubeVersion)
		if err != nil {
			return "", fmt.Errorf("invalid kube version %q: %w", r.kubeVersion, err)
		}
		caps.KubeVersion = *kv
	}
	caps.APIVersions = append(append(chartutil.VersionSet{}, chartutil.DefaultVersionSet...), r.apiVersions...)
	if ch.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, caps.KubeVersion.String()) {
		return "", fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s",
			ch.Metadata.KubeVersion, caps.KubeVersion.String())
	}
	options := chartutil.ReleaseOptions{
		Name:      r.releaseName,
		Namespace: r.namespace,
		Revision:  r.revision,
		IsInstall: !r.isUpgrade,
		IsUpgrade: r.isUpgrade,
	}
	top, err := chartutil.ToRenderValues(ch, vals, options, caps)
	if err != nil {
		return "", err
	}
	var rendered map[string]string
	if lookup.Truthy() {
		config := &rest.Config{Host: "http://lookup.gitsync.invalid", Transport: jsTransport{lookup}}
		rendered, err = engine.New(config).Render(ch, top)
	} else {
		rendered, err = engine.Engine{}.Render(ch, top)
	}
	if err != nil {
		return "", err
	}
	for name := range rendered {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(rendered, name)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(rendered, nil, releaseutil.InstallOrder)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, crd := range ch.CRDObjects() {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", crd.Filename, string(crd.File.Data))
	}
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	out := strings.TrimSpace(b.String()) + "\n"
	for _, h := range hooks {
		if isTest(h) {
			continue
		}
		out += fmt.Sprintf("---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	return out, nil
}

func isTest(h *release.Hook) bool {
	for _, e := range h.Events {
		if e == release.HookTest {
			return true
		}
	}
	return false
}

// checkDependencies refuses a chart whose Chart.yaml names dependencies that charts/ does not hold
// (Helm's own check before install, with its wording).
func checkDependencies(ch *chart.Chart, reqs []*chart.Dependency) error {
	var missing []string
outer:
	for _, r := range reqs {
		for _, d := range ch.Dependencies() {
			if d.Name() == r.Name {
				continue outer
			}
		}
		missing = append(missing, r.Name)
	}
	if len(missing) > 0 {
		return fmt.Errorf("found in Chart.yaml, but missing in charts/ directory: %s", strings.Join(missing, ", "))
	}
	return nil
}

// jsTransport answers client-go's requests (from Helm's `lookup`) through the JavaScript callback;
// only reads reach it.
type jsTransport struct{ lookup js.Value }

func (t jsTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		return nil, fmt.Errorf("lookup: %s is refused, only get and list are allowed", req.Method)
	}
	target := req.URL.Path
	if req.URL.RawQuery != "" {
		target += "?" + req.URL.RawQuery
	}
	reply, err := await(t.lookup.Invoke(target))
	if err != nil {
		return nil, fmt.Errorf("lookup %s: %w", path.Clean(req.URL.Path), err)
	}
	body := reply.Get("body").String()
	return &http.Response{
		StatusCode: reply.Get("status").Int(),
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(strings.NewReader(body)),
		Request:    req,
	}, nil
}

// await blocks this goroutine until the promise settles; JavaScript's event loop keeps running.
func await(promise js.Value) (js.Value, error) {
	done := make(chan struct{})
	var value js.Value
	var failure error
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any {
		value = args[0]
		close(done)
		return nil
	})
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any {
		failure = errors.New(js.Global().Get("String").Invoke(args[0]).String())
		close(done)
		return nil
	})
	defer onOK.Release()
	defer onErr.Release()
	promise.Call("then", onOK, onErr)
	<-done
	return value, failure
}

func run(_ js.Value, args []js.Value) any {
	promise := js.Global().Get("Promise")
	var req js.Value
	lookup := js.Null()
	if len(args) > 0 {
		req = args[0]
	}
	if len(args) > 1 {
		lookup = args[1]
	}
	executor := js.FuncOf(func(_ js.Value, pargs []js.Value) any {
		resolve := pargs[0]
		go func() {
			result := map[string]any{}
			defer func() {
				if p := recover(); p != nil {
					result = map[string]any{"error": fmt.Sprint("helm panicked: ", p)}
				}
				resolve.Invoke(result)
			}()
			r, err := readRequest(req)
			if err == nil {
				var out string
				out, err = render(r, lookup)
				result["yaml"] = out
			}
			if err != nil {
				result = map[string]any{"error": err.Error()}
			}
		}()
		return nil
	})
	defer executor.Release()
	return promise.New(executor)
}

func main() {
	js.Global().Set("gitsyncHelm", js.FuncOf(run))
	select {}
}
