def main():
    print("hello from main")


main()
