package symbols

import "strings"

// NameAt reads the name being written at the end of text (code, the
// generated body so far): partial is the trailing identifier characters
// (possibly none, right after a dot), receiver the expression before the
// dot that precedes it ("" for a bare name; as written, e.g. "self",
// "os.path", "items[0]"). ok is false when text does not end inside a
// name or right after "expr.", or ends inside a comment or a string on
// its last line.
func NameAt(text string) (receiver, partial string, ok bool) {
	line := text[strings.LastIndexByte(text, '\n')+1:]
	if strings.ContainsRune(line, '#') || strings.Count(line, `"`)%2 == 1 || strings.Count(line, `'`)%2 == 1 {
		return "", "", false
	}
	i := len(line)
	for i > 0 && identByte(line[i-1]) {
		i--
	}
	partial = line[i:]
	if partial != "" && partial[0] >= '0' && partial[0] <= '9' {
		return "", "", false
	}
	if i == 0 || line[i-1] != '.' {
		return "", partial, partial != ""
	}
	j := i - 1
	depth := 0
	for j > 0 {
		c := line[j-1]
		switch {
		case c == ')' || c == ']':
			depth++
		case (c == '(' || c == '[') && depth > 0:
			depth--
		case depth == 0 && !identByte(c) && c != '.':
			receiver = line[j : i-1]
			return receiver, partial, receiver != ""
		}
		j--
	}
	receiver = line[:i-1]
	return receiver, partial, receiver != ""
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
