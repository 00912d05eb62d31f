package ggml

/*
#include <stddef.h>
struct ggml_tensor;
size_t ggml_nbytes(const struct ggml_tensor * tensor);
void ggml_backend_tensor_get(const struct ggml_tensor * tensor, void * data, size_t offset, size_t size);
void ggml_backend_tensor_set(struct ggml_tensor * tensor, const void * data, size_t offset, size_t size);
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/ollama/ollama/ml"
)

// tensorRead copies an allocated tensor's data into buf, which must be
// exactly its size (ollama's Tensor.Bytes reads only computed tensors).
func tensorRead(t ml.Tensor, buf []byte) error {
	ct := header(t).t
	if n := int(C.ggml_nbytes(ct)); n != len(buf) {
		return fmt.Errorf("tensor of %d bytes read into %d", n, len(buf))
	}
	C.ggml_backend_tensor_get(ct, unsafe.Pointer(&buf[0]), 0, C.size_t(len(buf)))
	return nil
}

// tensorWrite copies buf, exactly the tensor's size, into its data.
func tensorWrite(t ml.Tensor, buf []byte) error {
	ct := header(t).t
	if n := int(C.ggml_nbytes(ct)); n != len(buf) {
		return fmt.Errorf("tensor of %d bytes written from %d", n, len(buf))
	}
	C.ggml_backend_tensor_set(ct, unsafe.Pointer(&buf[0]), 0, C.size_t(len(buf)))
	return nil
}
