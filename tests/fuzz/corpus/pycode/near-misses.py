class A:
    def f(self):
        return self.eval()
model.eval()
re.compile("x")
x.system = 1
"system"
