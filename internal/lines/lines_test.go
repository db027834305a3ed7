package lines

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	long := strings.Repeat("x", 100)
	in := "first\r\n" + long + "\n" + strings.Repeat("y", 10) + "\n\nlast"
	r := bufio.NewReaderSize(strings.NewReader(in), 16) // lines span buffers
	type got struct {
		line    string
		tooLong bool
		err     error
	}
	want := []got{{"first", false, nil}, {"", true, nil}, {"yyyyyyyyyy", false, nil}, {"", false, nil}, {"last", false, io.EOF}}
	for i, w := range want {
		line, tooLong, err := Read(r, 10)
		if g := (got{string(line), tooLong, err}); g != w {
			t.Errorf("line %d: got %+v, want %+v", i, g, w)
		}
	}
}
