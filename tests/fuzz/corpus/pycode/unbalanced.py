x = (((((
 os.system("a")
]]]}}})
"\
