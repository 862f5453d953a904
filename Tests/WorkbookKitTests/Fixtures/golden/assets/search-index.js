window.BOOK_INDEX = [
{chapter:"A sample chapter",section:"",url:"03-sample.html#a-sample-chapter",text:"Tags like \u003cscript\u003ealert(\"x\")\u003c/script\u003e \u0026 ampersands stay text. On Linux: a note about this platform."},
{chapter:"A sample chapter",section:"Printing \u0026 errors",url:"03-sample.html#printing-errors",text:"// Greets the reader. let name = \"Ada\" print(\"Hello, \\(name)!\", 42) let items = [1, 2] print(items[5]) let x: Int = \"one\" struct Point { var x = 0.5 }"},
{chapter:"A sample chapter",section:"Exercises",url:"03-sample.html#exercises",text:"Print the sum. // Your code here print(1 + 2) print(\"later\")"},
{chapter:"Next steps",section:"",url:"04-next.html#next-steps",text:""},
{chapter:"Next steps",section:"Timeouts",url:"04-next.html#timeouts",text:"while true {}"}
];
