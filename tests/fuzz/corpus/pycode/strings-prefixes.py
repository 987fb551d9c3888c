f"{x!r:>{width}} {os.system(\"y\")}" rf"\d{eval(1)}" b"\x00" u"a" Rb"\"" fr"""{exec(1)}"""
