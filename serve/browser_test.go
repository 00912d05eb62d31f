package serve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// RequireChromium makes a missing chromium binary a failure (make test sets
// it after installing Debian's chromium).
const RequireChromium = "ACTOR_REQUIRE_CHROMIUM"

// chromium returns the path of a Chromium or Chrome binary, or "".
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// artifacts is where the test's screenshots go: $ACTOR_TEST_ARTIFACTS/NAME
// when set (kept after the test), else the test's temporary folder.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ACTOR_TEST_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	dir = filepath.Join(dir, t.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The page in a real headless Chromium: it loads the repository's
// functions, streams a generation whose critical tokens are highlighted,
// opens a critical token's blocks on a click, and streams a plain
// completion, and shows a run's samples and a failed sample's trace.
func TestPageInChromium(t *testing.T) {
	bin := chromium()
	if bin == "" {
		msg := "no chromium binary on PATH (apt-get install -y chromium)"
		if os.Getenv(RequireChromium) == "1" {
			t.Fatalf("%s=1 and %s", RequireChromium, msg)
		}
		t.Skipf("%s; %s=1 makes this a failure", msg, RequireChromium)
	}
	p, repo := openTiny(t, 10)
	_, ts := newServer(t, p, Config{Repos: []string{repo}, Runs: writeRun(t)})
	out := artifacts(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.WindowSize(1400, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(browser, chromedp.Navigate(ts.URL+"/")); err != nil { // starts the browser: no time limit on this call
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(browser, 2*time.Minute)
	defer cancel()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v (screenshots in %s)", what, err, out)
		}
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil {
			err = os.WriteFile(filepath.Join(out, name), png, 0o644)
		}
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
	}
	do("the page loads the functions", chromedp.WaitReady(chromedp.CSS(`#function option`)))
	functions := text(`#function`)
	shot("1-loaded.png")
	do("a generation streams with critical tokens",
		chromedp.SetValue(chromedp.CSS(`#max-tokens`), "24"),
		chromedp.SetValue(chromedp.CSS(`#temperature`), "0"),
		chromedp.Click(chromedp.CSS(`#generate`)),
		chromedp.WaitVisible(chromedp.CSS(`.tok.critical`)),
		chromedp.WaitVisible(chromedp.CSS(`.summary`)))
	shot("2-streamed.png")
	do("a click opens the blocks",
		chromedp.Click(chromedp.CSS(`.tok.critical`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail .block`)))
	title, detail := text(`#detail-title`), text(`#detail-body`)
	shot("3-blocks.png")
	do("a plain completion streams",
		chromedp.Click(chromedp.CSS(`#tab-prompt`)),
		chromedp.SetValue(chromedp.CSS(`#p-max-tokens`), "8"),
		chromedp.Click(chromedp.CSS(`#complete`)),
		chromedp.WaitVisible(chromedp.CSS(`#samples-out .tok`)),
		chromedp.Poll[chromedp.Void](`document.getElementById("status").textContent.startsWith("done")`))
	status, completion := text(`#status`), text(`#samples-out`)
	shot("4-completion.png")
	do("a run's samples and a failed sample's trace",
		chromedp.Click(chromedp.CSS(`#tab-runs`)),
		chromedp.WaitReady(chromedp.CSS(`#run option`)),
		chromedp.Click(chromedp.CSS(`#open-run`)),
		chromedp.WaitVisible(chromedp.CSS(`table.run tr.fail`)),
		chromedp.Click(chromedp.CSS(`table.run tr.fail`)),
		chromedp.WaitVisible(chromedp.CSS(`#trace-view .tok.critical.changed`)),
		chromedp.Click(chromedp.CSS(`#trace-view .tok.critical`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail .block.new`)))
	trace := text(`#trace-view`)
	shot("5-run.png")
	if !strings.Contains(functions, "app.py:1") || strings.Contains(functions, "secret") {
		t.Errorf("function list %q", functions)
	}
	if !strings.HasPrefix(title, "critical token") || !strings.Contains(detail, "p(critical) per member") || !strings.Contains(detail, "blocks before") {
		t.Errorf("detail %q: %q", title, detail)
	}
	if !strings.HasPrefix(completion, "def fibonacci(n):") || !strings.HasPrefix(status, "done") {
		t.Errorf("completion %q, status %q", completion, status)
	}
	if !strings.Contains(trace, "AssertionError: assert 2 == 1") || !strings.Contains(trace, "return y x") {
		t.Errorf("trace view %q", trace)
	}
	t.Logf("screenshots in %s", out)
}
