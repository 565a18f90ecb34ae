// go-target: a Go program whose allocations are known exactly, for
// tests/system/goalloc.sh (`faultline goalloc`).  Built by the test with
// Debian's golang-go: go build -o DIR/go-target go-target.go.
//
// Usage: go-target [--go FIFO].  With --go it opens FIFO for reading
// first, which blocks until the test opens it for writing (as truth.h's
// targets do), so a tracer attaching with -p is ready.  Then:
//   main.sliceSite   1000 x make([]byte, 4096), each kept in a global
//                    (so it escapes to the heap): makeslice -> mallocgc
//   main.objectSite   500 x new(obj), obj being 48 bytes: newobject ->
//                    mallocgc
// and prints "site fn=NAME bytes=N count=N" for each, then "tid=N" (the
// thread both sites ran on), "comm=NAME" (/proc/self/comm) and "pid=N".
// The sizes are what mallocgc is asked for, as the tool reads them.
//
// The sites run in a goroutine locked to its thread (LockOSThread), so
// every allocation of theirs is made on that one thread; main is locked to
// the main thread from init, so that thread is not the main one (the
// sites' tid differs from the pid: a test that confuses the two fails).
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

type obj struct {
	a, b, c, d, e, f int64
}

var slices [][]byte
var objs []*obj
var lastSlice []byte
var lastObj *obj

//go:noinline
func sliceSite(n int) {
	for i := 0; i < n; i++ {
		lastSlice = make([]byte, 4096)
		slices[i] = lastSlice
	}
}

//go:noinline
func objectSite(n int) {
	for i := 0; i < n; i++ {
		lastObj = new(obj)
		objs[i] = lastObj
	}
}

func init() {
	// main runs on the main thread alone: the sites' goroutine cannot.
	runtime.LockOSThread()
}

// runSites runs both sites on one thread and sends its tid.
func runSites(tid chan<- int) {
	runtime.LockOSThread()
	sliceSite(1000)
	objectSite(500)
	tid <- syscall.Gettid()
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "--go" {
		f, err := os.OpenFile(os.Args[2], os.O_RDONLY, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, "go-target:", err)
			os.Exit(1)
		}
		// Read the releaser's byte before closing: a reader that closes
		// first leaves the writer's write to fail with EPIPE.
		var b [1]byte
		f.Read(b[:])
		f.Close()
	} else if len(os.Args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: go-target [--go FIFO]")
		os.Exit(2)
	}
	slices = make([][]byte, 1000)
	objs = make([]*obj, 500)
	tid := make(chan int)
	go runSites(tid)
	t := <-tid
	comm, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-target:", err)
		os.Exit(1)
	}
	fmt.Printf("site fn=main.sliceSite bytes=%d count=%d\n", 1000*4096, 1000)
	fmt.Printf("site fn=main.objectSite bytes=%d count=%d\n", 500*unsafe.Sizeof(obj{}), 500)
	fmt.Printf("tid=%d\n", t)
	fmt.Printf("comm=%s\n", strings.TrimSpace(string(comm)))
	fmt.Printf("pid=%d\n", os.Getpid())
}
