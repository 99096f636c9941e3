// Package cdp drives a real headless Chromium over the Chrome DevTools
// Protocol, for tests that use a page the way a person does: open it, click,
// read what it shows, take a screenshot.
//
// It speaks over --remote-debugging-pipe (file descriptors 3 and 4, messages
// ended by a NUL byte) rather than a WebSocket: no port to find, no
// dependency, and the browser dies with its pipe.
package cdp

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Browser is one Chromium process.
type Browser struct {
	cmd  *exec.Cmd
	out  io.WriteCloser // to the browser (its fd 3)
	wmu  sync.Mutex
	dir  string
	done chan struct{}

	mu      sync.Mutex
	nextID  int
	pending map[int]chan reply
	pages   map[string]*Page // by CDP session id
	err     error            // why the read loop ended
}

type reply struct {
	Result json.RawMessage
	Err    error
	Loads  int // the page's load count when the reply arrived
}

type message struct {
	ID        int             `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Path finds the Chromium binary: $CHROMIUM, else chromium or
// chromium-browser on $PATH.
func Path() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium on $PATH (Debian: apt-get install chromium; or set $CHROMIUM)")
}

// Launch starts headless Chromium with a fresh profile under dir.
func Launch(binary, dir string) (*Browser, error) {
	toBrowser, browserIn, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	browserOut, fromBrowser, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--hide-scrollbars", "--mute-audio",
		"--user-data-dir="+dir, "about:blank")
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // fd 3: it reads; fd 4: it writes
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	b := &Browser{cmd: cmd, out: browserIn, dir: dir, done: make(chan struct{}),
		pending: make(map[int]chan reply), pages: make(map[string]*Page)}
	go b.readLoop(browserOut)
	return b, nil
}

func (b *Browser) readLoop(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var raw []byte
		raw, err = br.ReadBytes(0)
		if err != nil {
			break
		}
		var m message
		if err = json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			break
		}
		b.dispatch(m)
	}
	b.mu.Lock()
	b.err = fmt.Errorf("browser connection: %w", err)
	for id, ch := range b.pending {
		ch <- reply{Err: b.err}
		delete(b.pending, id)
	}
	b.mu.Unlock()
	close(b.done)
}

func (b *Browser) dispatch(m message) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if m.ID != 0 {
		if ch, ok := b.pending[m.ID]; ok {
			delete(b.pending, m.ID)
			r := reply{Result: m.Result}
			if m.Error != nil {
				r = reply{Err: fmt.Errorf("cdp error %d: %s", m.Error.Code, m.Error.Message)}
			}
			if p, ok := b.pages[m.SessionID]; ok {
				r.Loads, _ = p.loadCount()
			}
			ch <- r
		}
		return
	}
	if p, ok := b.pages[m.SessionID]; ok {
		p.event(m.Method, m.Params)
	}
}

// call sends one command and waits for its reply, at most timeout.
func (b *Browser) call(session, method string, params any, result any) error {
	_, err := b.callLoads(session, method, params, result)
	return err
}

// callLoads is call that also returns the session's page load count when
// the reply arrived: the events read before it belong to earlier documents.
func (b *Browser) callLoads(session, method string, params any, result any) (int, error) {
	ch := make(chan reply, 1)
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return 0, b.err
	}
	b.nextID++
	id := b.nextID
	b.pending[id] = ch
	b.mu.Unlock()
	p, err := json.Marshal(params)
	if err != nil {
		return 0, err
	}
	raw, err := json.Marshal(message{ID: id, SessionID: session, Method: method, Params: p})
	if err != nil {
		return 0, err
	}
	b.wmu.Lock()
	_, err = b.out.Write(append(raw, 0))
	b.wmu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Err != nil {
			return r.Loads, fmt.Errorf("%s: %w", method, r.Err)
		}
		if result != nil {
			return r.Loads, json.Unmarshal(r.Result, result)
		}
		return r.Loads, nil
	case <-time.After(timeout):
		return 0, fmt.Errorf("%s: no answer from the browser within %v", method, timeout)
	}
}

// timeout bounds every wait on the browser.
const timeout = 20 * time.Second

// Close ends the browser and waits for it.
func (b *Browser) Close() error {
	_ = b.call("", "Browser.close", struct{}{}, nil)
	b.out.Close()
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(timeout):
		_ = b.cmd.Process.Kill()
		<-exited
	}
	return nil
}

// Page is one tab.
type Page struct {
	b       *Browser
	session string

	mu     sync.Mutex
	loads  int // Page.loadEventFired seen
	loaded chan struct{}
}

// NewPage opens a blank tab.
func (b *Browser) NewPage() (*Page, error) {
	var t struct{ TargetID string }
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &t); err != nil {
		return nil, err
	}
	var a struct{ SessionID string }
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": t.TargetID, "flatten": true}, &a); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: a.SessionID, loaded: make(chan struct{})}
	b.mu.Lock()
	b.pages[a.SessionID] = p
	b.mu.Unlock()
	for _, m := range []string{"Page.enable", "Runtime.enable"} {
		if err := b.call(a.SessionID, m, struct{}{}, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *Page) event(method string, _ json.RawMessage) {
	if method != "Page.loadEventFired" {
		return
	}
	p.mu.Lock()
	p.loads++
	close(p.loaded)
	p.loaded = make(chan struct{})
	p.mu.Unlock()
}

// loadCount is the number of loads seen and a channel closed at the next.
func (p *Page) loadCount() (int, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.loads, p.loaded
}

// waitLoad waits until more than n loads were seen.
func (p *Page) waitLoad(n int) error {
	deadline := time.After(timeout)
	for {
		got, next := p.loadCount()
		if got > n {
			return nil
		}
		select {
		case <-next:
		case <-p.b.done:
			return p.b.err
		case <-deadline:
			return fmt.Errorf("page did not finish loading within %v", timeout)
		}
	}
}

// Navigate opens url and waits for its load event.
func (p *Page) Navigate(url string) error {
	var r struct{ ErrorText string }
	n, err := p.b.callLoads(p.session, "Page.navigate", map[string]any{"url": url}, &r)
	if err != nil {
		return err
	}
	if r.ErrorText != "" {
		return fmt.Errorf("navigate %s: %s", url, r.ErrorText)
	}
	return p.waitLoad(n)
}

// Eval runs a JavaScript expression in the page and stores its (JSON)
// value in out, which may be nil.
func (p *Page) Eval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.b.call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if err != nil {
		return err
	}
	if e := r.ExceptionDetails; e != nil {
		return fmt.Errorf("eval %q: %s %s", expr, e.Text, e.Exception.Description)
	}
	if out == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Click clicks the first element matching selector with the mouse, as a
// person would: at the centre of its first line box.
func (p *Page) Click(selector string) error {
	var box struct{ X, Y float64 }
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return null;
		e.scrollIntoView({block: "center"});
		// the first line box: a link that wraps has nothing of its own at its centre
		const r = e.getClientRects()[0] || e.getBoundingClientRect();
		return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`, selector)
	var found json.RawMessage
	if err := p.Eval(js, &found); err != nil {
		return err
	}
	if string(found) == "null" || len(found) == 0 {
		return fmt.Errorf("click: no element matches %s", selector)
	}
	if err := json.Unmarshal(found, &box); err != nil {
		return err
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		err := p.b.call(p.session, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": box.X, "y": box.Y,
			"button": "left", "clickCount": 1}, nil)
		if err != nil {
			return err
		}
	}
	return nil
}

// ClickAndWait clicks selector and waits for the page it leads to.
func (p *Page) ClickAndWait(selector string) error {
	n, _ := p.loadCount()
	if err := p.Click(selector); err != nil {
		return err
	}
	return p.waitLoad(n)
}

// Screenshot writes a PNG of the page (its whole height when full).
func (p *Page) Screenshot(path string, width int, full bool) error {
	height := 900
	if full {
		var h int
		if err := p.Eval(`document.documentElement.scrollHeight`, &h); err != nil {
			return err
		}
		height = min(max(h, 300), 4000)
	}
	err := p.b.call(p.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height,
		"deviceScaleFactor": 1, "mobile": false}, nil)
	if err != nil {
		return err
	}
	var r struct{ Data string }
	if err := p.b.call(p.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}

// Text is the page's visible text.
func (p *Page) Text() (string, error) {
	var s string
	err := p.Eval(`document.body ? document.body.innerText : ""`, &s)
	return s, err
}
