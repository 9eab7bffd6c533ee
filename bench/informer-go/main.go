// Command informer-go measures client-go informer ingest against a real
// kube-apiserver reached through `kubectl proxy` (plain HTTP, no auth). It is
// the comparison baseline for Kubeglass's Rust informer; see README.md.
//
//	informer-go seed   -server URL -namespace NS -count N -size BYTES
//	informer-go ingest -server URL -namespace NS -mode list|watchlist -runs R
//
// -server defaults to $KUBEGLASS_BENCH_SERVER (where a URL with a token
// belongs: a command line is readable by every local user).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// watchListEnv is the environment variable client-go's default feature gates
// read for the WatchListClient gate (KUBE_FEATURE_ + the gate's name; see
// k8s.io/client-go/features/envvar.go).
const watchListEnv = "KUBE_FEATURE_WatchListClient"

func usage() {
	fmt.Fprintf(os.Stderr, `usage:
  %[1]s seed   -server URL -namespace NS -count N -size BYTES
  %[1]s ingest -server URL -namespace NS -mode list|watchlist -runs R

Run "%[1]s seed -h" or "%[1]s ingest -h" for all flags.
`, os.Args[0])
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "seed":
		err = seedMain(os.Args[2:])
	case "ingest":
		err = ingestMain(os.Args[2:])
	case "-h", "-help", "--help", "help":
		usage()
		return
	default:
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

const serverHelp = "kube-apiserver URL (kubectl proxy); default $KUBEGLASS_BENCH_SERVER, else http://127.0.0.1:18001"

// benchServer is -server, else $KUBEGLASS_BENCH_SERVER, else the test
// proxy's usual port. A URL with a capability token belongs in the
// environment: every local user can read a command line (ps).
func benchServer(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if v := os.Getenv("KUBEGLASS_BENCH_SERVER"); v != "" {
		return v
	}
	return "http://127.0.0.1:18001"
}

// restConfig is the client configuration for both subcommands: plain HTTP to
// the proxy, client-side rate limit high enough not to be the bottleneck.
func restConfig(server string, protobuf, disableCompression bool) *rest.Config {
	cfg := &rest.Config{
		Host:               server,
		QPS:                1000,
		Burst:              2000,
		DisableCompression: disableCompression,
		UserAgent:          "kubeglass-bench-informer-go",
	}
	// Explicit, because client-go v0.37's typed clients default to protobuf
	// when ContentType is unset, while a plain RESTClient (the informer's
	// ListWatch here) defaults to JSON.
	if protobuf {
		cfg.ContentType = k8sruntime.ContentTypeProtobuf
		cfg.AcceptContentTypes = k8sruntime.ContentTypeProtobuf + "," + k8sruntime.ContentTypeJSON
	} else {
		cfg.ContentType = k8sruntime.ContentTypeJSON
	}
	return cfg
}

// ---------------------------------------------------------------- seed

func seedMain(args []string) error {
	fs := flag.NewFlagSet("seed", flag.ExitOnError)
	server := fs.String("server", "", serverHelp)
	namespace := fs.String("namespace", "bench", "namespace to fill (created if missing)")
	count := fs.Int("count", 10000, "number of ConfigMaps to create")
	size := fs.Int("size", 1024, "approximate size in bytes of each ConfigMap as JSON on the wire")
	workers := fs.Int("workers", 8, "concurrent create workers")
	if err := fs.Parse(args); err != nil {
		return err
	}
	*server = benchServer(*server)
	if *count < 0 || *size < 0 || *workers < 1 {
		return errors.New("-count and -size must be >= 0, -workers >= 1")
	}

	ctx := context.Background()
	cs, err := kubernetes.NewForConfig(restConfig(*server, false, false))
	if err != nil {
		return err
	}
	start := time.Now()

	if err := ensureNamespace(ctx, cs, *namespace); err != nil {
		return err
	}
	// Only the seeded objects: kube-controller-manager republishes
	// kube-root-ca.crt into every namespace as soon as it is deleted.
	if err := cs.CoreV1().ConfigMaps(*namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=bench"}); err != nil {
		return fmt.Errorf("delete existing configmaps in %s: %w", *namespace, err)
	}
	if err := waitEmpty(ctx, cs, *namespace); err != nil {
		return err
	}

	overhead, err := measureOverhead(ctx, cs, *namespace)
	if err != nil {
		return err
	}
	payloadLen := max(*size-overhead, 0)
	fmt.Printf("seed: namespace %s emptied; object overhead without payload ~%d bytes, payload %d bytes\n",
		*namespace, overhead, payloadLen)

	jobs := make(chan int)
	var created atomic.Int64
	var firstErr error
	var errOnce sync.Once
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range *workers {
		wg.Go(func() {
			for i := range jobs {
				if err := createWithRetry(cctx, cs, configMap(*namespace, i, payloadLen)); err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					continue
				}
				if n := created.Add(1); n%1000 == 0 {
					fmt.Printf("seed: %d/%d created (%.1fs)\n", n, *count, time.Since(start).Seconds())
				}
			}
		})
	}
feed:
	for i := range *count {
		select {
		case jobs <- i:
		case <-cctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("after %d created: %w", created.Load(), firstErr)
	}
	secs := time.Since(start).Seconds()
	fmt.Printf("seed: done: %d configmaps in namespace %s, ~%d bytes each (payload %d), %.2fs (%.0f objects/s)\n",
		created.Load(), *namespace, overhead+payloadLen, payloadLen, secs, float64(created.Load())/secs)
	return nil
}

// ensureNamespace creates ns if it does not exist, waiting out a previous
// deletion that is still terminating.
func ensureNamespace(ctx context.Context, cs kubernetes.Interface, ns string) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		got, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		switch {
		case err == nil && got.Status.Phase != corev1.NamespaceTerminating:
			return nil
		case err == nil:
			// Terminating: wait until it is gone, then create it again.
		case apierrors.IsNotFound(err):
			_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
			if err == nil || apierrors.IsAlreadyExists(err) {
				fmt.Printf("seed: namespace %s created\n", ns)
				continue // re-check the phase
			}
			return fmt.Errorf("create namespace %s: %w", ns, err)
		default:
			return fmt.Errorf("get namespace %s: %w", ns, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("namespace %s still terminating after 2m", ns)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// waitEmpty waits until no seeded ConfigMap (app=bench) is left in ns
// (DeleteCollection of finalizer-free objects is normally immediate; this
// only double-checks).
func waitEmpty(ctx context.Context, cs kubernetes.Interface, ns string) error {
	deadline := time.Now().Add(time.Minute)
	for {
		l, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{Limit: 1, LabelSelector: "app=bench"})
		if err != nil {
			return fmt.Errorf("list configmaps in %s: %w", ns, err)
		}
		if len(l.Items) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("configmaps in %s not deleted after 1m", ns)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// measureOverhead returns the wire size in bytes of a seeded ConfigMap with an
// empty payload, as returned by a server-side dry-run create (so it includes
// kind/apiVersion, uid, creationTimestamp, labels and managedFields).
func measureOverhead(ctx context.Context, cs *kubernetes.Clientset, ns string) (int, error) {
	raw, err := cs.CoreV1().RESTClient().Post().
		Namespace(ns).Resource("configmaps").
		Param("dryRun", "All").
		Body(configMap(ns, 0, 0)).
		Do(ctx).Raw()
	if err != nil {
		return 0, fmt.Errorf("dry-run create to measure object size: %w", err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return 0, err
	}
	compact, err := json.Marshal(obj)
	if err != nil {
		return 0, err
	}
	n := len(compact)
	if md, _ := obj["metadata"].(map[string]any); md != nil && md["resourceVersion"] == nil {
		n += len(`,"resourceVersion":"12345678"`) // a dry run assigns none
	}
	return n, nil
}

const payloadAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// configMap builds seeded object i. The payload is pseudo-random
// alphanumerics (no JSON escaping; compresses like real-ish data rather than a
// run of one byte, which matters when the apiserver gzips large lists).
func configMap(ns string, i, payloadLen int) *corev1.ConfigMap {
	r := rand.New(rand.NewPCG(uint64(i), 0x6b756265676c6173))
	b := make([]byte, payloadLen)
	for j := range b {
		b[j] = payloadAlphabet[r.IntN(len(payloadAlphabet))]
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("cm-%05d", i),
			Namespace: ns,
			Labels:    map[string]string{"app": "bench", "bucket": strconv.Itoa(i % 10)},
		},
		Data: map[string]string{"payload": string(b)},
	}
}

func createWithRetry(ctx context.Context, cs kubernetes.Interface, cm *corev1.ConfigMap) error {
	var err error
	for attempt := range 5 {
		_, err = cs.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		if err == nil || apierrors.IsAlreadyExists(err) {
			return nil
		}
		if ctx.Err() != nil || !(apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) ||
			apierrors.IsTimeout(err) || apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err)) {
			break
		}
		time.Sleep(time.Duration(100<<attempt) * time.Millisecond)
	}
	return fmt.Errorf("create %s/%s: %w", cm.Namespace, cm.Name, err)
}

// ---------------------------------------------------------------- ingest

type result struct {
	Impl               string  `json:"impl"`
	Mode               string  `json:"mode"`
	Run                any     `json:"run"` // run number, or "median"
	Objects            int     `json:"objects"`
	Seconds            float64 `json:"seconds"`
	ObjectsPerSecond   float64 `json:"objects_per_second"`
	NsPerObject        float64 `json:"ns_per_object"`
	HeapBytesPerObject float64 `json:"heap_bytes_per_object"`
	// Requests the reflector actually made for the initial state: a
	// "watchlist" run that shows list_requests > 0 fell back to list.
	ListRequests      *int64 `json:"list_requests,omitempty"`
	WatchListRequests *int64 `json:"watchlist_requests,omitempty"`
}

func ingestMain(args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ExitOnError)
	server := fs.String("server", "", serverHelp)
	namespace := fs.String("namespace", "bench", "namespace whose ConfigMaps the informer caches")
	mode := fs.String("mode", "list", `initial state: "list" (classic LIST then WATCH) or "watchlist" (streaming WATCH with sendInitialEvents)`)
	runs := fs.Int("runs", 5, "number of runs, each with a fresh clientset and informer")
	dropManaged := fs.Bool("transform-drop-managed-fields", true, "strip metadata.managedFields in an informer transform (as the Rust side does)")
	syncWait := fs.String("sync-wait", "channel", `how to wait for sync: "channel" (informer.HasSyncedChecker().Done(), exact) or "poll" (cache.WaitForCacheSync, polls every 100ms)`)
	protobuf := fs.Bool("protobuf", false, "use protobuf instead of JSON on the wire")
	disableCompression := fs.Bool("disable-compression", false, "do not send Accept-Encoding: gzip (client-go sends it by default; the apiserver then gzips large list responses)")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up on a run that has not synced after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	*server = benchServer(*server)

	var watchList bool
	switch *mode {
	case "list":
	case "watchlist":
		watchList = true
	default:
		return fmt.Errorf("-mode must be list or watchlist, not %q", *mode)
	}
	if *syncWait != "channel" && *syncWait != "poll" {
		return fmt.Errorf("-sync-wait must be channel or poll, not %q", *syncWait)
	}
	if *runs < 1 {
		return errors.New("-runs must be >= 1")
	}
	if err := setWatchListClient(watchList); err != nil {
		return err
	}

	results := make([]result, 0, *runs)
	for run := 1; run <= *runs; run++ {
		r, err := ingestOnce(*server, *namespace, *mode, *dropManaged, *syncWait == "poll", *protobuf, *disableCompression, *timeout)
		if err != nil {
			return fmt.Errorf("run %d: %w", run, err)
		}
		r.Run = run
		if watchList && (*r.WatchListRequests == 0 || *r.ListRequests > 0) {
			fmt.Fprintf(os.Stderr, "warning: run %d: mode watchlist but the reflector made %d list and %d watch-list requests (server without streaming lists?)\n",
				run, *r.ListRequests, *r.WatchListRequests)
		}
		if !watchList && *r.WatchListRequests > 0 {
			fmt.Fprintf(os.Stderr, "warning: run %d: mode list but the reflector made %d watch-list requests\n", run, *r.WatchListRequests)
		}
		printJSON(r)
		results = append(results, r)
	}

	med := result{
		Impl:               implName(*protobuf),
		Mode:               *mode,
		Run:                "median",
		Objects:            int(median(results, func(r result) float64 { return float64(r.Objects) })),
		Seconds:            median(results, func(r result) float64 { return r.Seconds }),
		ObjectsPerSecond:   median(results, func(r result) float64 { return r.ObjectsPerSecond }),
		NsPerObject:        median(results, func(r result) float64 { return r.NsPerObject }),
		HeapBytesPerObject: median(results, func(r result) float64 { return r.HeapBytesPerObject }),
	}
	printJSON(med)
	return nil
}

// setWatchListClient forces client-go's WatchListClient feature gate.
//
// client-go's default gates (k8s.io/client-go/features) are an
// envVarFeatureGates: on the first Enabled() call it reads
// KUBE_FEATURE_<name> once (sync.Once) for every known gate, and a value given
// through its Set method takes precedence over the environment. The Reflector
// reads the gate once, in NewReflector, i.e. when the informer starts.
// WatchListClient is Beta and on by default since 1.35 (known_features.go).
//
// Both are done: the environment variable (effective as long as nothing read
// the gates before), and Set (effective regardless). Then the effective value
// is checked.
func setWatchListClient(on bool) error {
	if err := os.Setenv(watchListEnv, strconv.FormatBool(on)); err != nil {
		return err
	}
	gates := clientfeatures.FeatureGates()
	setter, ok := gates.(interface {
		Set(clientfeatures.Feature, bool) error
	})
	if !ok {
		return fmt.Errorf("client-go feature gates %T have no Set method", gates)
	}
	if err := setter.Set(clientfeatures.WatchListClient, on); err != nil {
		return err
	}
	if got := gates.Enabled(clientfeatures.WatchListClient); got != on {
		return fmt.Errorf("WatchListClient is %v after setting it to %v", got, on)
	}
	fmt.Fprintf(os.Stderr, "client-go feature gate WatchListClient=%v (%s=%v)\n", on, watchListEnv, on)
	return nil
}

// countingLW wraps a ListWatch and counts the requests the reflector makes.
// It deliberately does not implement IsWatchListSemanticsUnSupported, so the
// reflector treats it as supporting watch-list (same as a typed client).
type countingLW struct {
	lw        *cache.ListWatch
	lists     atomic.Int64
	watchList atomic.Int64
}

func (c *countingLW) List(options metav1.ListOptions) (k8sruntime.Object, error) {
	return c.ListWithContext(context.Background(), options)
}

func (c *countingLW) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return c.WatchWithContext(context.Background(), options)
}

func (c *countingLW) ListWithContext(ctx context.Context, options metav1.ListOptions) (k8sruntime.Object, error) {
	c.lists.Add(1)
	return c.lw.ListWithContext(ctx, options)
}

func (c *countingLW) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	if options.SendInitialEvents != nil && *options.SendInitialEvents {
		c.watchList.Add(1)
	}
	return c.lw.WatchWithContext(ctx, options)
}

func dropManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// implName names the baseline in the results: "client-go" speaks JSON (the
// figure the ratios are taken against), "client-go-protobuf" the encoding
// kube-controller-manager uses.
func implName(protobuf bool) string {
	if protobuf {
		return "client-go-protobuf"
	}
	return "client-go"
}

func ingestOnce(server, ns, mode string, dropManaged, poll, protobuf, disableCompression bool, timeout time.Duration) (result, error) {
	cs, err := kubernetes.NewForConfig(restConfig(server, protobuf, disableCompression))
	if err != nil {
		return result{}, err
	}
	// Every run starts on a new connection (plain-HTTP configs share
	// http.DefaultTransport in client-go).
	defer http.DefaultTransport.(*http.Transport).CloseIdleConnections()

	heapBefore := heapAlloc()

	lw := &countingLW{lw: cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", ns, fields.Everything())}
	informer := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	if dropManaged {
		if err := informer.SetTransform(dropManagedFields); err != nil {
			return result{}, err
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	stopped := make(chan struct{})

	start := time.Now()
	go func() {
		defer close(stopped)
		informer.RunWithContext(ctx)
	}()
	var synced bool
	if poll {
		synced = cache.WaitForCacheSync(ctx.Done(), informer.HasSynced)
	} else {
		select {
		case <-informer.HasSyncedChecker().Done():
			synced = true
		case <-ctx.Done():
		}
	}
	elapsed := time.Since(start)
	if !synced {
		cancel()
		<-stopped
		return result{}, fmt.Errorf("informer not synced after %v", timeout)
	}

	objects := len(informer.GetStore().ListKeys())
	heapAfter := heapAlloc()
	runtime.KeepAlive(informer)

	cancel()
	<-stopped

	secs := elapsed.Seconds()
	r := result{
		Impl:              implName(protobuf),
		Mode:              mode,
		Objects:           objects,
		Seconds:           secs,
		ListRequests:      new(lw.lists.Load()),
		WatchListRequests: new(lw.watchList.Load()),
	}
	if objects > 0 {
		r.ObjectsPerSecond = float64(objects) / secs
		r.NsPerObject = float64(elapsed.Nanoseconds()) / float64(objects)
		r.HeapBytesPerObject = (float64(heapAfter) - float64(heapBefore)) / float64(objects)
	}
	return r, nil
}

func median(rs []result, f func(result) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

func printJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
}
