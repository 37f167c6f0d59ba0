module github.com/libcuzk/libcuzk/bindings/go/cuzk

go 1.19
