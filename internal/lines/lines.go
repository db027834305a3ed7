// Package lines reads newline-delimited input with a bound on each line,
// for the JSON-lines interfaces (earshot classify, earshot mcp).
package lines

import (
	"bufio"
	"bytes"
	"errors"
)

// Read reads one line from r without its line ending ("\n" or "\r\n"). A
// line longer than limit bytes (the ending not counted) is consumed to its
// end and reported with tooLong and no text, so one huge line costs no
// memory and the next line is read normally. err is io.EOF at the end of
// the input (the last line may come with it) or the read error.
func Read(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(bytes.TrimRight(chunk, "\r\n")) > limit {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}
