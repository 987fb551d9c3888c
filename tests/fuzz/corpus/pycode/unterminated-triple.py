s = """unterminated
os.system("id")
