// gitsync's replacement for helm.sh/helm/v3/pkg/chartutil/capabilities.go (v3.16.4), swapped in by a
// Go build overlay (scripts/lib/wasm.ts). Helm computes DefaultVersionSet from client-go's scheme,
// which links every Kubernetes API type into the module (tens of MB of wasm); the list below is that
// computation's result for Helm v3.16.4 (client-go v0.31.3 plus apiextensions), kept by hand. The
// exported API is unchanged. Regenerate the list when the Helm pin moves: print
// chartutil.DefaultVersionSet from a native build of the new Helm.
package chartutil

import (
	"fmt"
	"strconv"

	"github.com/Masterminds/semver/v3"

	helmversion "helm.sh/helm/v3/internal/version"
)

var (
	k8sVersionMajor = "1"
	k8sVersionMinor = "20"

	// DefaultVersionSet is every API version client-go v0.31.3 knows, as Helm v3.16.4 computes it.
	DefaultVersionSet = VersionSet{
		"v1",
		"admissionregistration.k8s.io/v1",
		"admissionregistration.k8s.io/v1alpha1",
		"admissionregistration.k8s.io/v1beta1",
		"internal.apiserver.k8s.io/v1alpha1",
		"apps/v1",
		"apps/v1beta1",
		"apps/v1beta2",
		"authentication.k8s.io/v1",
		"authentication.k8s.io/v1alpha1",
		"authentication.k8s.io/v1beta1",
		"authorization.k8s.io/v1",
		"authorization.k8s.io/v1beta1",
		"autoscaling/v1",
		"autoscaling/v2",
		"autoscaling/v2beta1",
		"autoscaling/v2beta2",
		"batch/v1",
		"batch/v1beta1",
		"certificates.k8s.io/v1",
		"certificates.k8s.io/v1beta1",
		"certificates.k8s.io/v1alpha1",
		"coordination.k8s.io/v1alpha1",
		"coordination.k8s.io/v1beta1",
		"coordination.k8s.io/v1",
		"discovery.k8s.io/v1",
		"discovery.k8s.io/v1beta1",
		"events.k8s.io/v1",
		"events.k8s.io/v1beta1",
		"extensions/v1beta1",
		"flowcontrol.apiserver.k8s.io/v1",
		"flowcontrol.apiserver.k8s.io/v1beta1",
		"flowcontrol.apiserver.k8s.io/v1beta2",
		"flowcontrol.apiserver.k8s.io/v1beta3",
		"networking.k8s.io/v1",
		"networking.k8s.io/v1alpha1",
		"networking.k8s.io/v1beta1",
		"node.k8s.io/v1",
		"node.k8s.io/v1alpha1",
		"node.k8s.io/v1beta1",
		"policy/v1",
		"policy/v1beta1",
		"rbac.authorization.k8s.io/v1",
		"rbac.authorization.k8s.io/v1beta1",
		"rbac.authorization.k8s.io/v1alpha1",
		"resource.k8s.io/v1alpha3",
		"scheduling.k8s.io/v1alpha1",
		"scheduling.k8s.io/v1beta1",
		"scheduling.k8s.io/v1",
		"storage.k8s.io/v1beta1",
		"storage.k8s.io/v1",
		"storage.k8s.io/v1alpha1",
		"storagemigration.k8s.io/v1alpha1",
		"apiextensions.k8s.io/v1beta1",
		"apiextensions.k8s.io/v1",
	}

	// DefaultCapabilities is the default set of capabilities.
	DefaultCapabilities = &Capabilities{
		KubeVersion: KubeVersion{
			Version: fmt.Sprintf("v%s.%s.0", k8sVersionMajor, k8sVersionMinor),
			Major:   k8sVersionMajor,
			Minor:   k8sVersionMinor,
		},
		APIVersions: DefaultVersionSet,
		HelmVersion: helmversion.Get(),
	}
)

// Capabilities describes the capabilities of the Kubernetes cluster.
type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions VersionSet
	HelmVersion helmversion.BuildInfo
}

func (capabilities *Capabilities) Copy() *Capabilities {
	return &Capabilities{
		KubeVersion: capabilities.KubeVersion,
		APIVersions: capabilities.APIVersions,
		HelmVersion: capabilities.HelmVersion,
	}
}

// KubeVersion is the Kubernetes version.
type KubeVersion struct {
	Version string
	Major   string
	Minor   string
}

func (kv *KubeVersion) String() string { return kv.Version }

// Deprecated: use KubeVersion.Version.
func (kv *KubeVersion) GitVersion() string { return kv.Version }

// ParseKubeVersion parses a Kubernetes version ("1.31", "v1.31.2").
func ParseKubeVersion(version string) (*KubeVersion, error) {
	sv, err := semver.NewVersion(version)
	if err != nil {
		return nil, err
	}
	return &KubeVersion{
		Version: "v" + sv.String(),
		Major:   strconv.FormatUint(sv.Major(), 10),
		Minor:   strconv.FormatUint(sv.Minor(), 10),
	}, nil
}

// VersionSet is a set of Kubernetes API versions.
type VersionSet []string

// Has reports whether apiVersion is in the set.
func (v VersionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}
