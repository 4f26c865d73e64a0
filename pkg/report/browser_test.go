package report

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The page as a user sees it: rendered by headless Chromium (Debian's
// chromium package; scripts/test.sh installs it). A probe script, added to
// a copy of the page, records errors and console messages, every resource
// fetched, each chart's rendered size, and any chart element whose box
// (as the browser lays it out, with the real fonts) leaves the chart's
// viewBox. The untouched page is then screenshotted.

// chromium finds the browser: $TSLOAD_CHROMIUM, else chromium on PATH.
// Without it the test skips, except in CI (CI=true), where it fails.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TSLOAD_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found (scripts/test.sh installs the Debian package)")
	}
	t.Skip("chromium not installed (apt-get install chromium); CI=true makes this a failure")
	return ""
}

// probeScript runs before the page's content and, once it has loaded,
// writes its findings as JSON into <pre id="tsload-probe">.
const probeScript = `<script>
window.__errors = [];
window.addEventListener('error', function (e) {
  window.__errors.push('error: ' + (e.message || (e.target && (e.target.src || e.target.href)) || 'a resource failed'));
}, true);
(function () {
  ['error', 'warn'].forEach(function (level) {
    var orig = console[level];
    console[level] = function () {
      window.__errors.push('console.' + level + ': ' + Array.prototype.join.call(arguments, ' '));
      orig.apply(console, arguments);
    };
  });
})();
window.addEventListener('load', function () {
  var charts = [];
  document.querySelectorAll('svg.chart').forEach(function (svg) {
    var r = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal, outside = [];
    var toSVG = svg.getCTM().inverse();
    svg.querySelectorAll('text, rect, line, circle, polyline').forEach(function (el) {
      var b = el.getBBox(), m = toSVG.multiply(el.getCTM());
      [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]].forEach(function (p) {
        var pt = svg.createSVGPoint();
        pt.x = p[0]; pt.y = p[1];
        var q = pt.matrixTransform(m);
        if (q.x < vb.x - 1 || q.y < vb.y - 1 || q.x > vb.x + vb.width + 1 || q.y > vb.y + vb.height + 1) {
          outside.push(el.tagName + ' "' + (el.textContent || '').slice(0, 40) + '" at ' + q.x.toFixed(1) + ',' + q.y.toFixed(1));
        }
      });
    });
    charts.push({label: svg.getAttribute('aria-label'), width: r.width, height: r.height, outside: outside});
  });
  var pre = document.createElement('pre');
  pre.id = 'tsload-probe';
  pre.textContent = JSON.stringify({
    errors: window.__errors, charts: charts,
    resources: performance.getEntriesByType('resource').map(function (e) { return e.name; }),
    tables: document.querySelectorAll('table').length,
    scrolls: Array.prototype.map.call(document.querySelectorAll('.scroll'), function (d) {
      var t = d.querySelector('table');
      return {table: t ? t.className : '', scrollWidth: d.scrollWidth, clientWidth: d.clientWidth};
    }),
    height: document.documentElement.scrollHeight
  });
  document.body.appendChild(pre);
});
</script>`

type probeResult struct {
	Errors []string `json:"errors"`
	Charts []struct {
		Label   string   `json:"label"`
		Width   float64  `json:"width"`
		Height  float64  `json:"height"`
		Outside []string `json:"outside"`
	} `json:"charts"`
	Resources []string `json:"resources"`
	Tables    int      `json:"tables"`
	Scrolls   []struct {
		Table       string  `json:"table"`
		ScrollWidth float64 `json:"scrollWidth"`
		ClientWidth float64 `json:"clientWidth"`
	} `json:"scrolls"`
	Height float64 `json:"height"`
}

var probeRE = regexp.MustCompile(`(?s)<pre id="tsload-probe">(.*?)</pre>`)

// runChromium runs the browser headless on file with args, the network
// unreachable (every host name fails to resolve), and a profile of its own.
func runChromium(t *testing.T, bin, file string, args ...string) (stdout, stderr []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0"}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+file)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, errb.Bytes())
	}
	return out.Bytes(), errb.Bytes()
}

// probe renders page (with the probe script added) and returns the findings.
func probe(t *testing.T, bin string, page []byte, width int) probeResult {
	t.Helper()
	file := filepath.Join(t.TempDir(), "probe.html")
	withProbe := bytes.Replace(page, []byte("<head>"), []byte("<head>\n"+probeScript), 1)
	if err := os.WriteFile(file, withProbe, 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := runChromium(t, bin, file, "--window-size="+strconv.Itoa(width)+",900", "--dump-dom")
	m := probeRE.FindSubmatch(dom)
	if m == nil {
		t.Fatalf("no probe result in the rendered page (%d bytes)", len(dom))
	}
	var res probeResult
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &res); err != nil {
		t.Fatalf("probe result %q: %v", m[1], err)
	}
	return res
}

func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	page, err := HTML(envRuns(t, "testdata/failed_timescale_r3.json"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{1280, 800} {
		res := probe(t, bin, page, width)
		if len(res.Errors) > 0 {
			t.Errorf("width %d: errors on the page: %q", width, res.Errors)
		}
		if len(res.Resources) > 0 {
			t.Errorf("width %d: the page fetched %q", width, res.Resources)
		}
		if len(res.Charts) != 2+9 || res.Tables != 2 {
			t.Errorf("width %d: %d charts and %d tables rendered, want 11 and 2", width, len(res.Charts), res.Tables)
		}
		for _, c := range res.Charts {
			if c.Width < 200 || c.Height < 150 {
				t.Errorf("width %d: chart %q rendered %.0fx%.0f", width, c.Label, c.Width, c.Height)
			}
			if len(c.Outside) > 0 {
				t.Errorf("width %d: chart %q: outside its box: %q", width, c.Label, c.Outside)
			}
		}
		if width != 1280 {
			continue
		}
		// The untouched page: no console message at all (it has no script),
		// and a screenshot of the whole of it.
		file := filepath.Join(t.TempDir(), "report.html")
		if err := os.WriteFile(file, page, 0o644); err != nil {
			t.Fatal(err)
		}
		shot := filepath.Join(t.TempDir(), "report.png")
		if dir := os.Getenv("TSLOAD_SCREENSHOT_DIR"); dir != "" {
			shot = filepath.Join(dir, "report.png")
		}
		height := min(int(res.Height)+20, 8000)
		_, stderr := runChromium(t, bin, file, "--window-size=1280,"+strconv.Itoa(height), "--screenshot="+shot)
		for _, l := range strings.Split(string(stderr), "\n") {
			if strings.Contains(l, "CONSOLE") {
				t.Errorf("console message: %s", l)
			}
		}
		checkScreenshot(t, shot, 1280, height)
	}
}

// checkScreenshot demands a PNG of the window's size with a real picture on
// it: many colours (text, bars, lines) and the bars' blue.
func checkScreenshot(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	colours, blue := map[[3]uint32]bool{}, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if r>>8 == 0x4e && g>>8 == 0x79 && bl>>8 == 0xa7 {
				blue++
			}
		}
	}
	if len(colours) < 50 || blue < 500 {
		t.Errorf("screenshot %s: %d colours, %d samples of the bars' blue: not a rendered report", path, len(colours), blue)
	}
	t.Logf("screenshot %s: %dx%d, %d colours", path, b.Dx(), b.Dy(), len(colours))
}

// TestComparisonFitsAt1400: the comparison table of the widest report (a
// four-database comparison with costs, and paced runs: 19 value columns)
// fits a 1400 px window without scrolling sideways (issue 43.16).
func TestComparisonFitsAt1400(t *testing.T) {
	bin := chromium(t)
	runs, err := ReadFiles(append(globT(t, "testdata/cost/*.json"), globT(t, "testdata/pace/*.json")...))
	if err != nil {
		t.Fatal(err)
	}
	page, err := HTML(runs, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	res := probe(t, bin, page, 1400)
	found := false
	for _, s := range res.Scrolls {
		if s.Table != "comparison" {
			continue
		}
		found = true
		t.Logf("comparison table: %.0f px in a %.0f px box", s.ScrollWidth, s.ClientWidth)
		if s.ScrollWidth > s.ClientWidth+1 {
			t.Errorf("the comparison table is %.0f px wide in a %.0f px box: it scrolls sideways", s.ScrollWidth, s.ClientWidth)
		}
	}
	if !found {
		t.Fatalf("no comparison table: %+v", res.Scrolls)
	}
}

// The probe itself catches what it is there for: an element outside its
// chart, a failed fetch, a console error.
func TestChromiumProbeCatchesFaults(t *testing.T) {
	bin := chromium(t)
	bad := []byte(`<!DOCTYPE html><html><head><title>bad</title></head><body>
<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100" width="400" height="200" aria-label="cut">
<text x="150" y="50" font-size="20">far too long a label</text></svg>
<img src="http://tsload.invalid/x.png" alt="">
<script>console.error("boom")</script></body></html>`)
	res := probe(t, bin, bad, 800)
	if len(res.Charts) != 1 || len(res.Charts[0].Outside) == 0 {
		t.Errorf("clipped text not found: %+v", res.Charts)
	}
	joined := strings.Join(res.Errors, "\n")
	if !strings.Contains(joined, "console.error: boom") || !strings.Contains(joined, "tsload.invalid") {
		t.Errorf("errors %q: want the console error and the failed fetch", res.Errors)
	}
	// Console messages reach the log the screenshot run checks.
	file := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(file, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr := runChromium(t, bin, file, "--dump-dom"); !bytes.Contains(stderr, []byte("CONSOLE")) || !bytes.Contains(stderr, []byte("boom")) {
		t.Errorf("console error not in chromium's log:\n%s", stderr)
	}
}
