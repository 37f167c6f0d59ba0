module libcuzk.example/cuzk

go 1.19
